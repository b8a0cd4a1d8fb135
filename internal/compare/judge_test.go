package compare

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
)

// measured is rep with each iteration's CPU time and the machine's other
// load (others CPUs, wait share) as a run beside it records them.
func measured(wall, cpu []float64, others, wait float64) report.Report {
	r := rep(50000, wall...)
	for _, c := range cpu {
		r.CountersPerIteration = append(r.CountersPerIteration, report.IterationCounters{CPUMs: c})
	}
	r.Contention = &report.Contention{WaitShare: wait, OthersCPUs: f64(others)}
	return r
}

func judged(t *testing.T, old, new report.Report, judge string) Row {
	t.Helper()
	o := defaults()
	o.Judge = judge
	res := Compare([]report.Report{old}, []report.Report{new}, o)
	require.Len(t, res.Rows, 1)
	return res.Rows[0]
}

// The three cases of a shared runner: the code slowed (CPU and wall both
// moved: the code, reported at the CPU time's size); the machine was
// busier (wall moved, CPU did not, other load differed: the machine's,
// no verdict); the wall moved on machines alike (a regression the CPU
// clock does not see). --judge wall judges as compare did before.
func TestJudgeTheCodeNotTheMachine(t *testing.T) {
	base := measured(series(20, 300), series(20, 135), 0.9, 0.03)

	code := judged(t, base, measured(series(20, 333), series(20, 163), 0.9, 0.03), JudgeCode)
	assert.Equal(t, Regression, code.Verdict)
	assert.Equal(t, CauseCode, code.Cause)
	require.NotNil(t, code.CPU)
	assert.InDelta(t, 100*(163.0/135-1), code.CPU.Pct, 1e-9, "the regression's size is the CPU time's")
	assert.InDelta(t, 11, code.ChangePct, 1e-9)
	assert.Less(t, code.CPU.LoPct, code.CPU.Pct)
	assert.Greater(t, code.CPU.HiPct, code.CPU.Pct)
	assert.Contains(t, code.Why(), "CPU per iteration +20.7%")
	assert.Contains(t, code.Why(), ": the code")
	pct, _, what := code.Judged()
	assert.Equal(t, "CPU per iteration", what)
	assert.InDelta(t, code.CPU.Pct, pct, 1e-9)

	busier := measured(series(20, 315.6), series(20, 135.4), 1.38, 0.12)
	machine := judged(t, base, busier, JudgeCode)
	assert.True(t, machine.WallSignificant)
	assert.Equal(t, NoChange, machine.Verdict)
	assert.False(t, machine.Significant)
	assert.Equal(t, CauseMachine, machine.Cause)
	assert.Contains(t, machine.Why(), "other load 0.90 → 1.38 CPUs")
	assert.Contains(t, machine.Why(), "the machine, not counted")

	wall := judged(t, base, busier, JudgeWall)
	assert.Equal(t, Regression, wall.Verdict)
	assert.Equal(t, CauseWall, wall.Cause)

	alike := judged(t, base, measured(series(20, 330), series(20, 135.2), 0.95, 0.04), JudgeCode)
	assert.Equal(t, Regression, alike.Verdict, "a wall change on machines alike is not excused")
	assert.Equal(t, CauseWall, alike.Cause)
	assert.Contains(t, alike.Why(), "on machines alike")

	// A result from before compare judged the CPU time: the wall decides.
	old := rep(50000, series(20, 300)...)
	legacy := judged(t, old, rep(50000, series(20, 330)...), JudgeCode)
	assert.Nil(t, legacy.CPU)
	assert.Equal(t, Regression, legacy.Verdict)
	assert.Empty(t, legacy.Why())
}

// A faster CPU time is the code's improvement, whatever the wall did.
func TestJudgeCPUImprovement(t *testing.T) {
	row := judged(t, measured(series(20, 300), series(20, 150), 0.9, 0.03), measured(series(20, 300), series(20, 120), 1.5, 0.2), JudgeCode)
	assert.Equal(t, Improvement, row.Verdict)
	assert.Equal(t, CauseCode, row.Cause)
}

// Each side's warnings come through, counted and named by side, and the
// machines' difference is a warning of its own.
func TestCompareCarriesWarnings(t *testing.T) {
	a, b := measured(series(20, 300), series(20, 135), 0.9, 0.03), measured(series(20, 300), series(20, 135), 0.9, 0.03)
	a.Warnings = []report.Warning{{Kind: report.KindBusyMachine, Text: "busy machine: x"}}
	b.Warnings = []report.Warning{{Kind: report.KindBusyMachine, Text: "busy machine: x"}, {Kind: report.KindUnknown, Text: "few periods: y"}}
	n := measured(series(20, 316), series(20, 135), 1.4, 0.12)
	res := Compare([]report.Report{a, b}, []report.Report{n}, defaults())
	assert.Contains(t, res.Warnings, report.Warning{Kind: report.KindBusyMachine, Side: "old", Text: "old (2 of 2 results): busy machine: x"}, "the input's kind kept")
	assert.Contains(t, res.Warnings, report.Warning{Kind: report.KindUnknown, Side: "old", Text: "old (1 of 2 results): few periods: y"}, "an old result's too")
	require.Len(t, res.Warnings, 3)
	assert.Equal(t, report.KindMachinesDiffer, res.Warnings[2].Kind)
	assert.Contains(t, res.Warnings[2].Text, "the machines differed")
	assert.Contains(t, res.Warnings[2].Text, "other load 0.90 → 1.40 CPUs")
}

func TestMachineDiffers(t *testing.T) {
	m := func(others, wait float64) Machine { return Machine{OthersCPUs: f64(others), WaitShare: f64(wait)} }
	assert.False(t, m(0.9, 0.03).Differs(m(1.05, 0.07)))
	assert.True(t, m(0.9, 0.03).Differs(m(1.1, 0.03)), "a fifth of a CPU")
	assert.True(t, m(0.9, 0.03).Differs(m(0.9, 0.08)), "five points of wait")
	assert.False(t, Machine{}.Differs(m(2, 0.5)), "unknown on one side: not said to differ")
	assert.True(t, math.IsNaN(change(nil, []float64{1}, DefaultAlpha, DefaultCPUThresholdPct).Pct))
}

// The CPU time's own threshold: a 4% CPU change with the wall time moved
// less than --threshold is the code's at the default 3%, and nothing at
// --cpu-threshold 5.
func TestJudgeCPUThreshold(t *testing.T) {
	old, new := measured(series(20, 300), series(20, 150), 0.9, 0.03), measured(series(20, 306), series(20, 156), 0.9, 0.03)
	row := judged(t, old, new, JudgeCode)
	assert.False(t, row.WallSignificant, "wall +2%: below --threshold")
	assert.Equal(t, Regression, row.Verdict)
	assert.Equal(t, CauseCode, row.Cause)

	o := defaults()
	o.CPUThresholdPct = 5
	res := Compare([]report.Report{old}, []report.Report{new}, o)
	require.Len(t, res.Rows, 1)
	assert.Equal(t, NoChange, res.Rows[0].Verdict)
}

// A side measured in rounds (docs/ci.md) is several short results, each
// warned of its few iterations and periods; pooled, they are not few, and
// compare carries neither warning. A lone short result keeps its
// few_periods warning; how many iterations a row needs is the row's.
func TestComparePooledRoundsAreNotFew(t *testing.T) {
	short := func() report.Report {
		r := measured(series(2, 300), series(2, 150), 0.9, 0.03)
		r.Warnings = []report.Warning{{Kind: report.KindFewPeriods, Text: "few periods: 6 periods"}, {Kind: report.KindFewIterations, Text: "few iterations: 2+2"}}
		return r
	}
	var old, new []report.Report
	for range 5 {
		old, new = append(old, short()), append(new, short())
	}
	res := Compare(old, new, defaults())
	require.Len(t, res.Rows, 1)
	assert.Equal(t, 10, res.Rows[0].Old.N)
	assert.Empty(t, res.Warnings, "five rounds of 2 iterations of 300 ms span 30 periods of 100 ms")
	assert.Empty(t, res.Rows[0].Warnings)

	res = Compare(old[:1], new[:1], defaults())
	require.Len(t, res.Rows, 1)
	assert.Equal(t, []string{report.KindFewPeriods, report.KindFewPeriods}, kinds(res.Warnings), "one short result a side: its own warning")
	assert.Equal(t, []string{report.KindFewIterations}, kinds(res.Rows[0].Warnings), "2+2 iterations: the row says so")
}

func kinds(ws []report.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Kind)
	}
	return out
}
