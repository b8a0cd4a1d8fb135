package compare

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/table"
)

func i64(v int64) *int64     { return &v }
func u64(v uint64) *uint64   { return &v }
func f64(v float64) *float64 { return &v }

// rep is a run result of the default configuration with the given quota
// (-1 = max) and durations.
func rep(quotaUs int64, durations ...float64) report.Report {
	r := report.Report{
		SchemaVersion: report.SchemaVersion,
		Config:        report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 20, Iterations: len(durations), Warmup: 1, Workers: 1, GOMAXPROCS: 1},
		Cgroup:        report.Cgroup{Mode: "created", Version: 1, PeriodUs: i64(100000), QuotaUs: quotaUs},
		Host:          report.Host{Hostname: "a", Kernel: "6.18"},
		DurationsMs:   durations,
		Model:         report.Model{Ratio: 1},
	}
	r.Throttling.NrPeriods, r.Throttling.NrThrottled = u64(10), u64(0)
	return r
}

// series is n durations spread evenly around centre: centre·(1 ± 1%).
func series(n int, centre float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		// Rounded: the same values on CPUs with and without fused multiply-add.
		out[i] = math.Round(1000*centre*(0.99+0.02*float64(i)/float64(max(n-1, 1)))) / 1000
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, new []float64
		verdict  Verdict
		sig      bool
		change   float64
	}{
		{"2× slower is a regression", series(10, 100), series(10, 200), Regression, true, 100},
		{"2× faster is an improvement", series(10, 200), series(10, 100), Improvement, true, -50},
		{"the same samples are no change", series(10, 100), series(10, 100), NoChange, false, 0},
		// Significant but below the 5% threshold: not a verdict.
		{"3% slower is below the threshold", series(10, 100), series(10, 103), NoChange, false, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Compare([]report.Report{rep(50000, c.old...)}, []report.Report{rep(50000, c.new...)}, defaults())
			require.Len(t, res.Rows, 1)
			row := res.Rows[0]
			assert.Equal(t, c.verdict, row.Verdict)
			assert.Equal(t, c.sig, row.Significant)
			assert.InDelta(t, c.change, row.ChangePct, 1e-9)
			assert.Empty(t, row.Warnings)
			assert.Empty(t, res.Warnings)
		})
	}
}

func TestCompareThresholdZeroCountsEverySignificantChange(t *testing.T) {
	o := defaults()
	o.ThresholdPct = 0
	res := Compare([]report.Report{rep(50000, series(10, 100)...)}, []report.Report{rep(50000, series(10, 103)...)}, o)
	assert.Equal(t, Regression, res.Rows[0].Verdict)
}

func TestCompareTooFewIterationsWarn(t *testing.T) {
	res := Compare([]report.Report{rep(50000, 10, 11, 12)}, []report.Report{rep(50000, 30, 31, 32)}, defaults())
	row := res.Rows[0]
	assert.Equal(t, NoChange, row.Verdict, "p=0.1 at best: never significant")
	assert.InDelta(t, 0.1, row.P, 1e-12)
	assert.Equal(t, []report.Warning{{Kind: report.KindFewIterations, Text: "n=3+3 cannot reach p<0.05; need at least 4 iterations on each side"}}, row.Warnings)

	o := defaults()
	o.Alpha = 0.01
	res = Compare([]report.Report{rep(50000, series(4, 10)...)}, []report.Report{rep(50000, series(4, 20)...)}, o)
	assert.Equal(t, []string{"n=4+4 cannot reach p<0.01; need at least 5 iterations on each side"}, report.Texts(res.Rows[0].Warnings))

	// 4+4 can reach 0.05.
	res = Compare([]report.Report{rep(50000, series(4, 10)...)}, []report.Report{rep(50000, series(4, 20)...)}, defaults())
	assert.Empty(t, res.Rows[0].Warnings)
	assert.Equal(t, Regression, res.Rows[0].Verdict)
}

func TestCompareNoIterationsOnOneSide(t *testing.T) {
	res := Compare([]report.Report{rep(50000)}, []report.Report{rep(50000, 1, 2, 3)}, defaults())
	row := res.Rows[0]
	assert.Equal(t, NoChange, row.Verdict)
	assert.True(t, math.IsNaN(row.P))
	assert.True(t, math.IsNaN(row.ChangePct))
	assert.Equal(t, []report.Warning{{Kind: report.KindNoIterations, Text: "n=0+3: a side without iterations cannot be compared"}}, row.Warnings)
}

func TestCompareMatchingListsUnmatched(t *testing.T) {
	old := []report.Report{rep(50000, series(5, 10)...), rep(-1, series(5, 5)...), rep(20000, series(5, 30)...)}
	new := []report.Report{rep(30000, series(5, 20)...), rep(-1, series(5, 5)...), rep(50000, series(5, 10)...)}
	res := Compare(old, new, defaults())

	require.Len(t, res.Rows, 2)
	assert.Equal(t, "workload=bcrypt cost=4 batch=20 workers=1 gomaxprocs=1 period=100ms quota=50ms burst=0", res.Rows[0].Key, "in the order of old")
	assert.Equal(t, "workload=bcrypt cost=4 batch=20 workers=1 gomaxprocs=1 period=100ms quota=max burst=0", res.Rows[1].Key)
	require.Len(t, res.OnlyOld, 1)
	assert.Contains(t, res.OnlyOld[0].Key, "quota=20ms")
	require.Len(t, res.OnlyNew, 1)
	assert.Contains(t, res.OnlyNew[0].Key, "quota=30ms")
	assert.Equal(t, []string{"1 configuration(s) only in old and 1 only in new were not compared (matching on workload,cost,batch,workers,gomaxprocs,period,quota,burst,cpuset,pin,one-per-core,node)"}, report.Texts(res.Warnings))
	assert.Equal(t, report.KindUnpaired, res.Warnings[0].Kind)
	assert.Equal(t, 3, res.Old.Results)
	assert.Equal(t, 3, res.New.Results)
}

func TestCompareNothingMatchedWarns(t *testing.T) {
	res := Compare([]report.Report{rep(50000, 1, 2, 3, 4)}, []report.Report{rep(20000, 1, 2, 3, 4)}, defaults())
	assert.Empty(t, res.Rows)
	assert.Len(t, res.OnlyOld, 1)
	assert.Len(t, res.OnlyNew, 1)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0].Text, "no configuration is on both sides")
	assert.True(t, Unpaired(res.Warnings[0]), "known by its kind")
}

func TestCompareMatchKeysChooseWhatPairs(t *testing.T) {
	a, b := rep(50000, series(6, 10)...), rep(100000, series(6, 20)...)
	b.Host.Hostname = "b"

	// Two hosts, two quotas: with the default keys nothing pairs up ...
	res := Compare([]report.Report{a}, []report.Report{b}, defaults())
	assert.Empty(t, res.Rows)

	// ... matched on the workload alone they do, the quota ignored.
	o := defaults()
	o.Match = []string{"workload"}
	res = Compare([]report.Report{a}, []report.Report{b}, o)
	require.Len(t, res.Rows, 1)
	assert.Equal(t, "workload=bcrypt", res.Rows[0].Key)
	assert.Equal(t, Regression, res.Rows[0].Verdict)

	// host as a key keeps the two hosts apart.
	o.Match = []string{"workload", "host"}
	res = Compare([]report.Report{a, b}, []report.Report{b, a}, o)
	require.Len(t, res.Rows, 2)
	assert.Equal(t, "workload=bcrypt host=a", res.Rows[0].Key)
	assert.Equal(t, NoChange, res.Rows[0].Verdict)

	// Every key has a reading; the key order is fixed whatever the order asked.
	o.Match = []string{"node", "mode", "version", "kernel", "host", "one-per-core", "pin", "cpuset", "burst", "quota", "period", "gomaxprocs", "workers", "batch", "cost", "workload"}
	res = Compare([]report.Report{a}, []report.Report{a}, o)
	assert.Equal(t, "workload=bcrypt cost=4 batch=20 workers=1 gomaxprocs=1 period=100ms quota=50ms burst=0 host=a kernel=6.18 version=1 mode=created", res.Rows[0].Key,
		"no placement asked: its keys are left out")
	assert.Equal(t, Keys(), res.Options.Match)

	// A placement tells configurations apart, and names itself.
	placed := a
	placed.Config.Cpuset, placed.Config.Pin = "0-1", true
	res = Compare([]report.Report{a, placed}, []report.Report{placed, a}, defaults())
	require.Len(t, res.Rows, 2)
	assert.Equal(t, "workload=bcrypt cost=4 batch=20 workers=1 gomaxprocs=1 period=100ms quota=50ms burst=0 cpuset=0-1 pin=true", res.Rows[1].Key)
	assert.Equal(t, map[string]any{"cpuset": "0-1", "pin": true, "one_per_core": false},
		map[string]any{"cpuset": res.Rows[1].Fields[8].Value, "pin": res.Rows[1].Fields[9].Value, "one_per_core": res.Rows[1].Fields[10].Value})

	// No period file: the period is "none" and null.
	c := rep(-1, 1, 2)
	c.Cgroup.PeriodUs = nil
	res = Compare([]report.Report{c}, []report.Report{c}, defaults())
	assert.Contains(t, res.Rows[0].Key, "period=none quota=max")
	assert.Nil(t, res.Rows[0].Fields[5].Value)
}

// A memtouch result written before --touch existed (no touch in its
// config) stored one byte per page: a fresh one pairs with today's --touch
// page, and the default, all, a different experiment, stays apart; a reuse
// one repainted one buffer, not one per operation, and pairs with nothing.
func TestCompareMemtouchWithoutTouchIsPage(t *testing.T) {
	mt := func(touch string, durations ...float64) report.Report {
		r := rep(-1, durations...)
		ps := report.Params{}.With("buffer_bytes", 1<<20).With("memory", "fresh")
		if touch != "" {
			ps = ps.With("touch", touch)
		}
		r.Config = report.Config{Workload: "memtouch", Params: ps, Batch: 100, Iterations: len(durations), Workers: 1, GOMAXPROCS: 1}
		return r
	}
	old := []report.Report{mt("", series(6, 20)...)}
	res := Compare(old, []report.Report{mt("all", series(6, 110)...), mt("page", series(6, 20)...)}, defaults())
	require.Len(t, res.Rows, 1)
	assert.Equal(t, "workload=memtouch(buffer=1048576,memory=fresh,touch=page) batch=100 workers=1 gomaxprocs=1 period=100ms quota=max burst=0", res.Rows[0].Key)
	assert.Equal(t, NoChange, res.Rows[0].Verdict)
	require.Len(t, res.OnlyNew, 1)
	assert.Contains(t, res.OnlyNew[0].Key, "touch=all")
	assert.Empty(t, res.OnlyOld)

	// Reuse repainted one buffer then, a buffer per operation now: apart.
	oldReuse, newReuse := mt("", series(6, 1)...), mt("page", series(6, 1)...)
	oldReuse.Config.Params = oldReuse.Config.Params.With("memory", "reuse")
	newReuse.Config.Params = newReuse.Config.Params.With("memory", "reuse")
	res = Compare([]report.Report{oldReuse}, []report.Report{newReuse}, defaults())
	assert.Empty(t, res.Rows)
	require.Len(t, res.OnlyOld, 1)
	assert.Contains(t, res.OnlyOld[0].Key, "memory=reuse,touch=page,kept=1)")
	require.Len(t, res.OnlyNew, 1)
	assert.Contains(t, res.OnlyNew[0].Key, "memory=reuse,touch=page,kept=100)")
}

// Results of a cluster (collect) name their node: by default each node's
// results are compared with the same node's; -node compares one node with
// another; results pooled across nodes say so.
func TestCompareByNode(t *testing.T) {
	onNode := func(node string, r report.Report) report.Report { r.Host.Node = node; return r }
	fast, slow := rep(50000, series(6, 10)...), rep(50000, series(6, 20)...)
	old := []report.Report{onNode("node-a", fast), onNode("node-b", fast)}
	new := []report.Report{onNode("node-a", fast), onNode("node-b", slow)}

	res := Compare(old, new, defaults())
	require.Len(t, res.Rows, 2)
	assert.Equal(t, "workload=bcrypt cost=4 batch=20 workers=1 gomaxprocs=1 period=100ms quota=50ms burst=0 node=node-b", res.Rows[1].Key)
	assert.Equal(t, []Verdict{NoChange, Regression}, []Verdict{res.Rows[0].Verdict, res.Rows[1].Verdict})

	// node-a against node-b: one file each, the node left out of the keys.
	match, err := ParseMatch("-node")
	require.NoError(t, err)
	o := defaults()
	o.Match = match
	res = Compare([]report.Report{onNode("node-a", fast)}, []report.Report{onNode("node-b", slow)}, o)
	require.Len(t, res.Rows, 1)
	assert.Equal(t, Regression, res.Rows[0].Verdict)

	// Both nodes on each side, pooled: said on each side.
	res = Compare(old, new, o)
	require.Len(t, res.Rows, 1)
	assert.Contains(t, res.Rows[0].New.Notes, "pooled from 2 nodes (node-a, node-b); add node to --match (+node) to compare them one by one")
}

func TestParseMatchRelative(t *testing.T) {
	m, err := ParseMatch("-node,+host")
	require.NoError(t, err)
	assert.Equal(t, append(slices.DeleteFunc(slices.Clone(DefaultMatch), func(k string) bool { return k == "node" }), "host"), m)
	_, err = ParseMatch("workload,-node")
	assert.ErrorIs(t, err, ErrMatch)
	_, err = ParseMatch("+nope")
	assert.ErrorIs(t, err, ErrMatch)
	m, err = ParseMatch("workload,node")
	require.NoError(t, err)
	assert.Equal(t, []string{"workload", "node"}, m)
}

func TestCompareParseMatch(t *testing.T) {
	got, err := ParseMatch("workload, host,workload")
	require.NoError(t, err)
	assert.Equal(t, []string{"workload", "host"}, got)
	_, err = ParseMatch("workload,cpus")
	assert.ErrorIs(t, err, ErrMatch)
	assert.ErrorContains(t, err, `"cpus"`)
	_, err = ParseMatch(" , ")
	assert.ErrorIs(t, err, ErrMatch)
}

func TestComparePoolingSaysSo(t *testing.T) {
	a, b := rep(50000, 10, 11, 12), rep(50000, 13, 14, 15)
	a.Throttling.NrPeriods, a.Throttling.NrThrottled = u64(10), u64(5)
	b.Throttling.NrPeriods, b.Throttling.NrThrottled = u64(30), u64(5)
	a.Model.Ratio, b.Model.Ratio = 1.0, 2.0
	res := Compare([]report.Report{a, b}, []report.Report{rep(50000, 10, 11, 12, 13, 14, 15)}, defaults())
	require.Len(t, res.Rows, 1)
	s := res.Rows[0].Old
	assert.Equal(t, 2, s.Runs)
	assert.Equal(t, 6, s.N)
	assert.Equal(t, []float64{10, 11, 12, 13, 14, 15}, s.Values)
	assert.InDelta(t, 12.5, s.Center, 1e-12)
	require.NotNil(t, s.ThrottledFraction)
	assert.InDelta(t, 10.0/40, *s.ThrottledFraction, 1e-12, "Σ throttled / Σ periods, not a mean of fractions")
	require.NotNil(t, s.ModelRatio)
	assert.InDelta(t, 1.5, *s.ModelRatio, 1e-12)
	assert.Contains(t, s.Notes, "2 results pooled: 6 iterations")
	assert.Equal(t, 1.0, res.Rows[0].P)
	assert.Empty(t, res.Rows[0].New.Notes, "6 iterations give a 95% interval")
}

// The pooled model ratio is over the iterations, not over the results: a
// result with three iterations counts three times as much as one with one.
func TestComparePooledRatioWeightsIterations(t *testing.T) {
	a, b := rep(50000, 10), rep(50000, 13, 14, 15)
	a.Model.Ratio, b.Model.Ratio = 1.0, 2.0
	res := Compare([]report.Report{a, b}, []report.Report{rep(50000, 10, 11, 12, 13)}, defaults())
	require.Len(t, res.Rows, 1)
	require.NotNil(t, res.Rows[0].Old.ModelRatio)
	assert.InDelta(t, (1.0*1+2.0*3)/4, *res.Rows[0].Old.ModelRatio, 1e-12)
}

func TestCompareSummarySpread(t *testing.T) {
	xs := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	res := Compare([]report.Report{rep(-1, xs...)}, []report.Report{rep(-1, xs...)}, defaults())
	s := res.Rows[0].Old
	assert.InDelta(t, 5.5, s.Center, 1e-12)
	// n=10: the order statistics 2 and 9 cover the median with 97.9%.
	assert.Equal(t, 2.0, s.Lo)
	assert.Equal(t, 9.0, s.Hi)
	assert.InDelta(t, 0.9785, s.Confidence, 1e-4)
	assert.Empty(t, s.Notes)

	// n=5 cannot give 95%: the range, and a note saying so.
	res = Compare([]report.Report{rep(-1, 5, 1, 4, 2, 3)}, []report.Report{rep(-1, 1, 2, 3, 4, 5)}, defaults())
	s = res.Rows[0].Old
	assert.Equal(t, 1.0, s.Lo)
	assert.Equal(t, 5.0, s.Hi)
	assert.InDelta(t, 0.9375, s.Confidence, 1e-12)
	assert.Equal(t, []string{"n=5: ± is the full range, a 93% confidence interval of the median; 95% needs at least 6 iterations"}, s.Notes)
}

func TestCompareThrottlingNullWhenNotReported(t *testing.T) {
	a := rep(-1, 1, 2, 3)
	a.Throttling = report.Throttling{}
	a.Model.Ratio = 0
	b := rep(-1, 1, 2, 3)
	b.Throttling.NrPeriods = u64(0)
	res := Compare([]report.Report{a}, []report.Report{b}, defaults())
	assert.Nil(t, res.Rows[0].Old.ThrottledFraction)
	assert.Nil(t, res.Rows[0].New.ThrottledFraction, "no period ran")
	assert.Nil(t, res.Rows[0].Old.ModelRatio)
	assert.NotNil(t, res.Rows[0].New.ModelRatio)
}

func TestCompareUnknownMatchKeyInOptionsWarns(t *testing.T) {
	o := defaults()
	o.Match = []string{"workload", "colour"}
	res := Compare([]report.Report{rep(-1, 1)}, []report.Report{rep(-1, 1)}, o)
	assert.Equal(t, []string{"workload"}, res.Options.Match)
	assert.True(t, strings.Contains(strings.Join(report.Texts(res.Warnings), "\n"), `unknown match key "colour" ignored`))
}

// A run warns when its iterations are too few for compare at compare's
// default --alpha: the two must not drift apart.
func TestRunWarningsJudgeByCompareAlpha(t *testing.T) {
	assert.Equal(t, DefaultAlpha, build.DefaultThresholds.Alpha)
}

// A command's results carry no built-in keys in compare's configuration
// (cost=0 batch=1 workers=1, and gomaxprocs, which for a command left as
// its environment had it is only the machine's CPUs), and a result
// written before they were left out still pairs with a new one, from a
// machine with other CPUs too; compare's JSON keeps every key (issue 33).
func TestCompareCommandWithoutBuiltInKeys(t *testing.T) {
	old, err := LoadFile("OLD", "testdata/command-old.json") // written by 91e7147, before the change
	require.NoError(t, err)
	require.Len(t, old, 1)
	newer := old[0]
	newer.Config.GOMAXPROCS, newer.Host.NumCPU = 4, 4
	res := Compare(old, []report.Report{newer}, defaults())
	require.Len(t, res.Rows, 1, "paired: %+v / %+v", res.OnlyOld, res.OnlyNew)
	key := res.Rows[0].Key
	assert.Equal(t, "workload=command(python3 -c 'sum(range(10**6))') period=100ms quota=50ms burst=0", key)

	var buf bytes.Buffer
	require.NoError(t, Write(&buf, res, "text", table.View{Width: 200}))
	for _, gone := range []string{"cost=", "batch=", "workers=", "gomaxprocs="} {
		assert.NotContains(t, buf.String(), gone)
	}
	buf.Reset()
	require.NoError(t, Write(&buf, res, "json", table.View{}))
	for _, kept := range []string{`"cost": 0`, `"batch": 1`, `"workers": 1`, `"gomaxprocs": 2`} {
		assert.Contains(t, buf.String(), kept)
	}

	// A number given with --gomaxprocs is part of what ran: it stays.
	given := newer
	given.Config.GOMAXPROCSPolicy = "4"
	res = Compare(old, []report.Report{given}, defaults())
	assert.Empty(t, res.Rows)
	require.Len(t, res.OnlyNew, 1)
	assert.Contains(t, res.OnlyNew[0].Key, "gomaxprocs=4")
}

// Configurations that pair under fewer keys: the --match that pairs them,
// as a change to the default (issue 33: quota=5ms against quota=4ms said
// nothing compared three times, and not how to compare them); never one
// that would pool configurations that are apart now.
func TestCompareSuggestsMatch(t *testing.T) {
	res := Compare([]report.Report{rep(5000, series(6, 20)...)}, []report.Report{rep(4000, series(6, 20)...)}, defaults())
	require.Empty(t, res.Rows)
	assert.Equal(t, Suggestion{Match: "-quota", Pairs: 1}, res.Suggest)
	assert.Contains(t, res.Warnings[0].Text, "; --match -quota would pair 1 configuration")
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, res, "text", table.View{}))
	assert.Contains(t, buf.String(), "verdict: nothing compared\n")
	assert.NotContains(t, buf.String(), "no configuration is on both sides", "the command's error says it, once")

	// Two quotas on one side: without the quota they would be pooled.
	res = Compare([]report.Report{rep(5000, series(6, 20)...), rep(3000, series(6, 30)...)}, []report.Report{rep(4000, series(6, 20)...)}, defaults())
	assert.Zero(t, res.Suggest)
	assert.Equal(t, "", res.Suggest.Text())

	// From a --match of the user's own: the change to the default it needs.
	opts := defaults()
	opts.Match = append(slices.Clone(DefaultMatch), "host")
	a, b := rep(5000, series(6, 20)...), rep(4000, series(6, 20)...)
	b.Host.Hostname = "b"
	res = Compare([]report.Report{a}, []report.Report{b}, opts)
	assert.Equal(t, Suggestion{Match: "-quota", Pairs: 1}, res.Suggest, "host and quota differ: both go, and host is not in the default")
	opts.Match = []string{"workload", "quota"}
	res = Compare([]report.Report{a}, []report.Report{b}, opts)
	assert.Equal(t, Suggestion{Match: "workload", Pairs: 1}, res.Suggest, "the list, shorter than eleven -KEYs")
}

// defaults are the options of the compare command without flags.
func defaults() Options {
	return Options{Match: DefaultMatch, Alpha: DefaultAlpha, ThresholdPct: DefaultThresholdPct, CPUThresholdPct: DefaultCPUThresholdPct}
}
