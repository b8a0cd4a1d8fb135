package benchhist

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/golden"
)

func nan() float64 { return math.NaN() }

const statsPkg = "github.com/throttlebench/throttlebench/internal/stats"

// run is one line of BenchmarkX at the given time, on the fixture machine.
func run(at string, metrics map[string][]float64) Line {
	return testEnv(at).Line(Bench{Pkg: statsPkg, Name: "BenchmarkX", Procs: 2, Iters: make([]int, 5), Metrics: metrics})
}

func hist(lines ...Line) History { return History{File: "BenchmarkX.jsonl", Lines: lines} }

func around(center float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = center * (1 + 0.002*float64(i-n/2))
	}
	return out
}

func one(t *testing.T, res Result) Row {
	t.Helper()
	require.Len(t, res.Rows, 1)
	return res.Rows[0]
}

func TestCheckFirstRunIsNotJudged(t *testing.T) {
	res := Check([]History{hist(run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}))}, Options{})
	r := one(t, res)
	assert.False(t, r.Judged)
	assert.False(t, r.Moved)
	assert.True(t, math.IsNaN(r.P))
	assert.Equal(t, []string{"first run: no earlier run to compare with"}, r.Warnings)
	assert.Equal(t, 0.05, res.Options.Alpha, "the default alpha is compare's")
}

func TestCheckSteadyRunDidNotMove(t *testing.T) {
	h := hist(
		run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}),
		run("2026-01-03T10:00:00Z", map[string][]float64{"ns/op": around(101, 5)}),
	)
	r := one(t, Check([]History{h}, Options{ThresholdPct: 5}))
	assert.True(t, r.Judged)
	assert.False(t, r.Moved, "1%% is under the threshold, significant or not")
	assert.Equal(t, Side{Runs: 2, N: 10, Median: 100}, r.Earlier, "the earlier runs pooled")
	assert.Equal(t, 5, r.Newest.N)
	assert.InDelta(t, 1, r.ChangePct, 1e-9)
	assert.Empty(t, r.Warnings)
}

func TestCheckSlowdownMoved(t *testing.T) {
	h := hist(
		run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(100, 5), "cgroup-periods/s": around(4e7, 5)}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(120, 5), "cgroup-periods/s": around(4e7, 5)}),
	)
	res := Check([]History{h}, Options{ThresholdPct: 5})
	require.Len(t, res.Rows, 2)
	periods, ns := res.Rows[0], res.Rows[1]
	assert.Equal(t, "ns/op", ns.Unit)
	assert.True(t, ns.Moved)
	assert.InDelta(t, 20, ns.ChangePct, 1e-9)
	assert.Less(t, ns.P, 0.05)
	assert.Equal(t, -1, ns.Better, "benchfmt: lower ns/op is better")
	assert.Equal(t, "moved, worse", verdict(ns))
	assert.False(t, periods.Moved)
	assert.Equal(t, 0, periods.Better, "a custom unit's direction is unknown")
	assert.Equal(t, 1, res.Moved())

	res = Check([]History{h}, Options{ThresholdPct: 25})
	assert.Equal(t, 0, res.Moved(), "under the threshold")
	assert.Equal(t, "~", verdict(res.Rows[1]))
}

// Too few samples for p to reach alpha is a warning, not a verdict
// (benchstat's habit): 2+2 samples cannot give p < 0.05 however far apart.
func TestCheckTooFewSamples(t *testing.T) {
	h := hist(
		run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": {100, 101}}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": {200, 201}}),
	)
	r := one(t, Check([]History{h}, Options{ThresholdPct: 5}))
	assert.False(t, r.Judged)
	assert.False(t, r.Moved)
	assert.InDelta(t, 99.5, r.ChangePct, 0.01, "the change is still shown")
	assert.Equal(t, []string{"too few samples: n=2+2 cannot reach p<0.05; a larger -count or more runs can"}, r.Warnings)
	assert.Equal(t, "?", verdict(r))
}

func TestCheckBaselineOnOtherMachines(t *testing.T) {
	other := run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(50, 5)})
	other.Machine.CPUModel = "Intel(R) Xeon(R)"
	otherKernel := run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(60, 5)})
	otherKernel.Kernel = "6.1.0"
	newest := run("2026-01-03T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)})

	r := one(t, Check([]History{hist(other, otherKernel, newest)}, Options{Match: DefaultMatch, ThresholdPct: 5}))
	assert.False(t, r.Judged, "another machine's figures are no baseline")
	assert.False(t, r.Moved)
	assert.Equal(t, 2, r.Earlier.Runs, "shown against all earlier runs")
	assert.Equal(t, []string{"no earlier run with the same machine, kernel and GOMAXPROCS: shown against all 2 earlier runs, not judged"}, r.Warnings)

	r = one(t, Check([]History{hist(other, otherKernel, newest)}, Options{Match: []string{MatchMachine}, ThresholdPct: 5}))
	assert.True(t, r.Moved, "matched on the machine alone, the other kernel is the baseline")
	assert.Equal(t, 1, r.Earlier.Runs)
	assert.Equal(t, 60.0, r.Earlier.Median)

	r = one(t, Check([]History{hist(other, otherKernel, newest)}, Options{ThresholdPct: 5}))
	assert.Equal(t, 2, r.Earlier.Runs, "no keys: every earlier run")

	// Memory within half a GiB is the same machine: MemTotal moves by a few kB between boots.
	sameMachine := run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)})
	sameMachine.Machine.MemBytes -= 12 << 10
	r = one(t, Check([]History{hist(sameMachine, newest)}, Options{Match: DefaultMatch}))
	assert.True(t, r.Judged)

	// GOMAXPROCS always matters.
	procs := run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)})
	procs.Procs = 1
	r = one(t, Check([]History{hist(procs, newest)}, Options{}))
	assert.False(t, r.Judged)
}

func TestCheckRunsPoolsTheLastOnes(t *testing.T) {
	h := hist(
		run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(80, 5)}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}),
		run("2026-01-03T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}),
		run("2026-01-04T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}),
	)
	r := one(t, Check([]History{h}, Options{Runs: 2, ThresholdPct: 5}))
	assert.Equal(t, 2, r.Earlier.Runs)
	assert.Equal(t, 100.0, r.Earlier.Median)
	assert.False(t, r.Moved)
	r = one(t, Check([]History{h}, Options{ThresholdPct: 5}))
	assert.Equal(t, 3, r.Earlier.Runs)
}

// Only the benchmarks of the newest run are judged: one that skipped (no
// root) or was removed keeps its old last line, which is listed instead.
func TestCheckStaleBenchmarks(t *testing.T) {
	fresh := hist(
		run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}),
	)
	old1 := run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)})
	old2 := run("2026-01-01T11:00:00Z", map[string][]float64{"ns/op": around(300, 5)})
	old1.Name, old2.Name = "BenchmarkRoot", "BenchmarkRoot"
	stale := History{File: "BenchmarkRoot.jsonl", Lines: []Line{old1, old2}}

	res := Check([]History{fresh, stale}, Options{ThresholdPct: 5})
	assert.Equal(t, "2026-01-02T10:00:00Z", res.Newest)
	assert.Equal(t, "384ded7", res.Commit)
	require.Len(t, res.Rows, 1)
	assert.Equal(t, "BenchmarkX", res.Rows[0].Name)
	assert.Equal(t, []Stale{{Pkg: statsPkg, Name: "BenchmarkRoot", Procs: 2, Time: "2026-01-01T11:00:00Z"}}, res.Stale)
	assert.Equal(t, 0, res.Moved())

	res = Check([]History{fresh, stale}, Options{ThresholdPct: 5, All: true})
	assert.Len(t, res.Rows, 2)
	assert.Empty(t, res.Stale)
	assert.Equal(t, 1, res.Moved(), "-all judges the old run too")
}

func TestCheckNewMetricAndZeroMedian(t *testing.T) {
	h := hist(
		run("2026-01-01T10:00:00Z", map[string][]float64{"missed": {0, 0, 0, 0, 0}}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"missed": {1, 2, 1, 2, 1}, "traced/plain": around(1.1, 5)}),
	)
	res := Check([]History{h}, Options{ThresholdPct: 5})
	require.Len(t, res.Rows, 2)
	missed, traced := res.Rows[0], res.Rows[1]
	assert.False(t, missed.Judged)
	assert.Contains(t, missed.Warnings, "earlier median is 0: no change in percent")
	assert.Less(t, missed.P, 0.05, "p is still shown")
	assert.False(t, traced.Judged)
	assert.Equal(t, []string{"new metric: traced/plain is not in the earlier runs"}, traced.Warnings)
}

// Two invocations of the recorder with make bench's one -time are one
// run: the newest run is every line with the newest line's time.
func TestCheckOneRunInTwoLines(t *testing.T) {
	h := hist(
		run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(100, 5)}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(100, 3)}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(100, 3)}),
	)
	r := one(t, Check([]History{h}, Options{}))
	assert.Equal(t, Side{Runs: 1, N: 6, Median: 100}, r.Newest)
	assert.Equal(t, 1, r.Earlier.Runs)
}

func TestParseMatch(t *testing.T) {
	keys, err := ParseMatch("machine, kernel,go,machine")
	require.NoError(t, err)
	assert.Equal(t, []string{"machine", "kernel", "go"}, keys)
	keys, err = ParseMatch("")
	require.NoError(t, err)
	assert.Empty(t, keys)
	_, err = ParseMatch("machine,host")
	assert.ErrorContains(t, err, `unknown match key "host": want a comma-separated list of machine, kernel, cgroup, go`)
}

func TestLater(t *testing.T) {
	assert.True(t, later("2026-01-02T10:00:00Z", ""))
	assert.False(t, later("", ""))
	assert.True(t, later("2026-01-02T10:00:00Z", "2026-01-02T09:00:00+00:00"))
	assert.True(t, later("2026-01-02T10:00:00+02:00", "2026-01-02T07:00:00Z"))
	assert.False(t, later("2026-01-02T10:00:00+02:00", "2026-01-02T09:00:00Z"), "times, not text")
}

// The table bench-check prints, on a history with a run that moved, one
// that did not, one with too few samples, a first run and a stale one.
func TestWriteGolden(t *testing.T) {
	x := hist(
		run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(865037, 5), "B/op": around(81948, 5), "allocs/op": {1, 1, 1, 1, 1}}),
		run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(1003000, 5), "B/op": around(81948, 5), "allocs/op": {1, 1, 1, 1, 1}}),
	)
	few := func(at string, v []float64) Line {
		l := run(at, map[string][]float64{"traced/plain": v})
		l.Pkg, l.Name = "github.com/throttlebench/throttlebench/test/integration", "BenchmarkTraceOverhead"
		return l
	}
	trace := History{Lines: []Line{few("2026-01-01T10:00:00Z", []float64{1.01, 1.02}), few("2026-01-02T10:00:00Z", []float64{1.2, 1.3})}}
	first := run("2026-01-02T10:00:00Z", map[string][]float64{"ns/op": around(1500, 5)})
	first.Pkg, first.Name = "github.com/throttlebench/throttlebench/test/integration", "BenchmarkModelRatio/cpus=0.5/workers=2"
	stale := run("2026-01-01T10:00:00Z", map[string][]float64{"ns/op": around(1500, 5)})
	stale.Name = "BenchmarkRootOnly"

	res := Check([]History{x, trace, {Lines: []Line{first}}, {Lines: []Line{stale}}}, Options{Match: DefaultMatch, ThresholdPct: 5})
	res.Warnings = append(res.Warnings, "bench/history/x.jsonl:3: not a history line, skipped: unexpected end of JSON input")
	for _, format := range Formats {
		var b strings.Builder
		require.NoError(t, Write(&b, res, "github.com/throttlebench/throttlebench", format))
		golden.Check(t, "check."+format, b.String())
	}
}
