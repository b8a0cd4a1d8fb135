package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
)

// What --judge accepts: what a change is judged by.
const (
	// JudgeCode judges the code: a change of the CPU time per iteration
	// decides where both sides have it, and a change of the wall time
	// that the CPU time does not show, between sides whose machines were
	// loaded differently, is the machine's and fails nothing.
	JudgeCode = "code"
	// JudgeWall judges the wall time alone, as compare did before.
	JudgeWall = "wall"
)

// Judges are the values of --judge.
var Judges = []string{JudgeCode, JudgeWall}

// Cause says what moved a configuration between the sides.
type Cause string

const (
	// CauseCode: the CPU time per iteration changed significantly.
	CauseCode Cause = "code"
	// CauseMachine: the wall time changed, the CPU time did not, and the
	// machines' other load differed (Machine.Differs).
	CauseMachine Cause = "machine"
	// CauseWall: the wall time changed and the CPU time did not (or is
	// not known) on machines alike: waits, parallelism or the limit's
	// shape, which the CPU clock does not see.
	CauseWall Cause = "wall"
)

// Change is one measure's change from old to new: of the medians, with
// the interval the two medians' confidence intervals allow (the least and
// the most the change can be with both medians inside theirs), the U
// test's p and whether it counts (p < alpha and |change| ≥ threshold).
type Change struct {
	OldMs, NewMs float64 // the medians
	Pct          float64 // NaN where it cannot be computed
	LoPct, HiPct float64
	P            float64
	Significant  bool
}

// change compares two samples of one measure: significant at p < alpha
// and |change| ≥ thresholdPct.
func change(old, new []float64, alpha, thresholdPct float64) Change {
	c := Change{Pct: math.NaN(), LoPct: math.NaN(), HiPct: math.NaN(), P: math.NaN(), OldMs: math.NaN(), NewMs: math.NaN()}
	if len(old) == 0 || len(new) == 0 {
		return c
	}
	oc, olo, ohi := medianCI(old)
	nc, nlo, nhi := medianCI(new)
	c.OldMs, c.NewMs = oc, nc
	if oc > 0 && olo > 0 {
		c.Pct = (nc/oc - 1) * 100
		c.LoPct, c.HiPct = (nlo/ohi-1)*100, (nhi/olo-1)*100
	}
	c.P = stats.UTest(old, new)
	c.Significant = c.P < alpha && math.Abs(c.Pct) >= thresholdPct
	return c
}

// medianCI is the median of values and its Confidence interval, the range
// where there are too few values for one: benchstat's interval, as the
// summaries' (stats.MedianCI, which differs from stats.QuantileCI on
// purpose).
func medianCI(values []float64) (center, lo, hi float64) {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	lo, hi, _, _ = stats.MedianCI(sorted, Confidence)
	return stats.Quantile(sorted, 0.5), lo, hi
}

// Machine is what the machine's other work cost one side, averaged over
// its results that measured it (their contention block): the share of
// its runnable time the work waited for CPUs others held, and the CPUs
// others used. Nil fields where no result measured it.
type Machine struct {
	WaitShare  *float64
	OthersCPUs *float64
}

// The least difference between two sides' machines that makes a wall
// change theirs: five points of wait share (size's rule for a base
// measured under other contention than the levels it judges), or a fifth
// of a CPU of other load (build.DefaultThresholds.BusyCPUs: enough to
// take CPU time from a workload that uses every CPU).
const (
	machineWaitShare = 0.05
	machineCPUs      = 0.2
)

// Differs says whether the two sides' machines were loaded differently
// enough to move a wall time.
func (old Machine) Differs(new Machine) bool {
	far := func(a, b *float64, d float64) bool { return a != nil && b != nil && math.Abs(*a-*b) >= d }
	return far(old.WaitShare, new.WaitShare, machineWaitShare) || far(old.OthersCPUs, new.OthersCPUs, machineCPUs)
}

// Text is "other load 0.93 → 1.38 CPUs, waited 3% → 12%" for what is known.
func (old Machine) Text(new Machine) string {
	var parts []string
	if old.OthersCPUs != nil && new.OthersCPUs != nil {
		parts = append(parts, fmt.Sprintf("other load %.2f → %.2f CPUs", *old.OthersCPUs, *new.OthersCPUs))
	}
	if old.WaitShare != nil && new.WaitShare != nil {
		parts = append(parts, fmt.Sprintf("waited for CPUs %.0f%% → %.0f%% of the runnable time", 100**old.WaitShare, 100**new.WaitShare))
	}
	return strings.Join(parts, ", ")
}

// machineOf averages the contention the runs measured.
func machineOf(runs []*report.Report) Machine {
	var m Machine
	var wait, others []float64
	for _, r := range runs {
		if c := r.Contention; c != nil {
			wait = append(wait, c.WaitShare)
			if c.OthersCPUs != nil {
				others = append(others, *c.OthersCPUs)
			}
		}
	}
	mean := func(xs []float64) *float64 {
		if len(xs) == 0 {
			return nil
		}
		s := 0.0
		for _, x := range xs {
			s += x
		}
		s /= float64(len(xs))
		return &s
	}
	m.WaitShare, m.OthersCPUs = mean(wait), mean(others)
	return m
}

// cpuOf is the runs' CPU time per iteration, pooled; nil where a run has
// none for some of its iterations (a result from before compare judged
// it, or an iteration whose workers were not timed).
func cpuOf(runs []*report.Report) []float64 {
	var out []float64
	for _, r := range runs {
		if len(r.CountersPerIteration) != len(r.DurationsMs) {
			return nil
		}
		for _, c := range r.CountersPerIteration {
			out = append(out, c.CPUMs)
		}
	}
	return out
}

// judge sets the row's verdict and its cause: by the wall time alone
// (JudgeWall, or where a side has no CPU time per iteration), else by the
// CPU time, a wall change it does not show being the machine's where the
// machines differed.
func (row *Row) judge(judge string) {
	wall := row.WallSignificant
	row.Significant, row.Verdict, row.Cause = false, NoChange, ""
	sign := func(pct float64) Verdict {
		if pct > 0 {
			return Regression
		}
		return Improvement
	}
	switch {
	case judge != JudgeWall && row.CPU != nil && row.CPU.Significant:
		row.Significant, row.Verdict, row.Cause = true, sign(row.CPU.Pct), CauseCode
	case !wall:
	case judge != JudgeWall && row.CPU != nil && row.Old.Machine.Differs(row.New.Machine):
		row.Cause = CauseMachine
	default:
		row.Significant, row.Verdict, row.Cause = true, sign(row.ChangePct), CauseWall
	}
}

// Why says in one sentence what moved the row and what it is taken for:
// "CPU per iteration +21.0% [+18.7%, +23.1%]: the code"; "" where
// nothing moved, or where a side has no CPU time to set the wall time
// against (a result from before compare judged it).
func (row Row) Why() string {
	if row.CPU == nil {
		return ""
	}
	cpu := "CPU per iteration not known"
	if !math.IsNaN(row.CPU.Pct) {
		cpu = fmt.Sprintf("CPU per iteration %+.1f%%", row.CPU.Pct)
	}
	switch row.Cause {
	case CauseCode:
		return fmt.Sprintf("%s [%+.1f%%, %+.1f%%] (%s): the code", cpu, row.CPU.LoPct, row.CPU.HiPct, pText(row.CPU.P))
	case CauseMachine:
		return fmt.Sprintf("wall %+.1f%%, %s, %s: the machine, not counted (--judge wall counts it)",
			row.ChangePct, cpu, row.Old.Machine.Text(row.New.Machine))
	case CauseWall:
		return fmt.Sprintf("wall %+.1f%%, %s on machines alike: what the CPU clock does not see (waits, parallelism, the quota's shape)", row.ChangePct, cpu)
	}
	return ""
}

// Judged is the change the verdict rests on: the CPU time's for the
// code, else the wall time's.
func (row Row) Judged() (pct, p float64, what string) {
	if row.Cause == CauseCode {
		return row.CPU.Pct, row.CPU.P, "CPU per iteration"
	}
	return row.ChangePct, row.P, "wall"
}
