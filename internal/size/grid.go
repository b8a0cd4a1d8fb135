package size

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// MaxLevels bounds the grid, as a sweep's axis is bounded: a typo in
// --step cannot start a search over a million quotas.
const MaxLevels = config.MaxValues

// MaxStepPercent bounds a geometric step: beyond doubling per level the
// grid says little about where the answer is.
const MaxStepPercent = 100

// Step is the grid's resolution: each level either CPUs above the previous
// (--step 0.05) or Percent above it (--step 5%, geometric). Exactly one is
// above 0.
type Step struct {
	CPUs    float64
	Percent float64
}

// ParseStep reads --step: a number of CPUs (0.05, or 50m as Kubernetes
// writes it), or a percentage ending in %.
func ParseStep(v string) (Step, error) {
	t := strings.TrimSpace(v)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		pct, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(pct > 0 && pct <= MaxStepPercent) {
			return Step{}, badinput.Errorf("step", "invalid --step %q: want a percentage above 0 and at most %d, such as 5%% (each level 5%% above the previous), or a number of CPUs such as 0.05 or 50m", v, MaxStepPercent)
		}
		return Step{Percent: pct}, nil
	}
	c, ok := config.ParseCPUs(t)
	if !ok || !(c > 0 && c <= config.MaxCPUs) {
		return Step{}, badinput.Errorf("step", "invalid --step %q: want a number of CPUs above 0 and at most %d, such as 0.05 or 50m, or a percentage such as 5%%", v, config.MaxCPUs)
	}
	return Step{CPUs: c}, nil
}

// String is s as --step takes it: "0.05", "5%".
func (s Step) String() string {
	if s.Percent > 0 {
		return strconv.FormatFloat(s.Percent, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(s.CPUs, 'f', -1, 64)
}

// Range is the span of CPUs the search covers, and why (for a default
// range: what it was derived from).
type Range struct {
	Min, Max float64
	Why      string
}

// Grid is the quota grid as the flags give it, at Period. Min and Max are 0
// where --cpus-min or --cpus-max was not given: Levels takes those ends
// from the default range.
type Grid struct {
	Min, Max float64 // CPUs
	Step     Step
	Period   time.Duration
}

// ParseGrid reads --cpus-min, --cpus-max ("" for not given; CPUs as
// config.ParseCPUs reads them: 0.5, 500m) and --step at period (already
// checked: config's 1ms–1s), refusing a bad number, an end whose quota is
// below the kernel's 1 ms and a step finer than a microsecond of quota;
// with both ends, what Check refuses of them too.
func ParseGrid(cpusMin, cpusMax, step string, period time.Duration) (Grid, error) {
	g := Grid{Period: period}
	var err error
	if g.Step, err = ParseStep(step); err != nil {
		return g, err
	}
	if g.Step.CPUs > 0 && bandwidth.Quota(g.Step.CPUs, period) < time.Microsecond {
		return g, badinput.Errorf("step", "invalid --step %q: finer than the kernel's 1µs of quota per %v period (%s CPUs)", step, period, fmtCPUs(1/periodUs(period)))
	}
	if g.Min, err = parseEnd("cpus-min", cpusMin, period); err != nil {
		return g, err
	}
	if g.Max, err = parseEnd("cpus-max", cpusMax, period); err != nil {
		return g, err
	}
	if g.Min > 0 && g.Max > 0 {
		err = g.Check(0)
	}
	return g, err
}

// Check refuses, before anything runs, every grid that Levels would refuse
// whatever the default range turns out to be, numCPU being the machine's
// CPUs (0: unknown), and the grids that say little:
//
//   - both ends given: ends out of order, more than MaxLevels levels, and a
//     step wider than the range (--step 2 over 0.2–1, where Levels would
//     make the two ends alone; a percentage whose first step passes the
//     high end), which is no grid to search;
//   - --cpus-min alone: one not below the highest default --cpus-max
//     (DefaultRange's, at most numCPU or twice the kernel's minimum,
//     rounded up to the step);
//   - --cpus-max alone: one not above the lowest default --cpus-min (the
//     kernel's minimum quota).
//
// Where one end is given, the other is measured: Levels can still find
// the ends out of order once it is, and says which flag to give.
func (g Grid) Check(numCPU int) error {
	switch {
	case g.Min > 0 && g.Max > 0:
		if _, err := g.Levels(Range{}); err != nil {
			return err
		}
		return g.checkWidth()
	case g.Min > 0 && numCPU > 0:
		if hi := g.Top(numCPU); !(g.Min < hi) {
			return badinput.Errorf("cpus-min", "invalid --cpus-min %s: not below the default --cpus-max, at most %s CPUs (this machine has %d); give --cpus-max too, or a lower --cpus-min", fmtCPUs(g.Min), fmtCPUs(hi), numCPU)
		}
	case g.Max > 0:
		if lo := MinCPUs(g.Period); !(lo < g.Max) {
			return badinput.Errorf("cpus-max", "invalid --cpus-max %s: not above the default --cpus-min, at least %s CPUs (the kernel's 1ms of quota per %v period); give a higher --cpus-max", fmtCPUs(g.Max), fmtCPUs(lo), g.Period)
		}
	}
	return nil
}

// Top is the highest level the grid can have on a machine of numCPU CPUs:
// --cpus-max where given, else the highest default (DefaultRange's high
// end, at most numCPU, or twice the kernel's minimum where that is more,
// rounded up to the step); +Inf where numCPU is unknown (0).
func (g Grid) Top(numCPU int) float64 {
	if g.Max > 0 {
		return g.Max
	}
	if numCPU <= 0 {
		return math.Inf(1)
	}
	hi := math.Max(float64(numCPU), 2*MinCPUs(g.Period))
	if g.Step.CPUs > 0 {
		hi = math.Ceil(hi/g.Step.CPUs-1e-9) * g.Step.CPUs
	}
	return hi
}

// checkWidth refuses a step wider than the range between the given ends.
func (g Grid) checkWidth() error {
	width := g.Max - g.Min
	switch {
	case g.Step.CPUs > 0 && g.Step.CPUs > width+1e-9:
		return badinput.Errorf("step", "invalid --step %q: wider than the range from %s to %s CPUs (%s), so no grid; want a step of at most %s, such as %s",
			g.Step, fmtCPUs(g.Min), fmtCPUs(g.Max), fmtCPUs(round6(width)), fmtCPUs(round6(width)), fmtCPUs(round6(width/4)))
	case g.Step.Percent > 0 && g.Min*(1+g.Step.Percent/100) > g.Max*(1+1e-9):
		most := 100 * (g.Max/g.Min - 1)
		return badinput.Errorf("step", "invalid --step %q: wider than the range from %s to %s CPUs (%s%% above the low end), which leaves only its two ends; want a step of at most %s%%",
			g.Step, fmtCPUs(g.Min), fmtCPUs(g.Max), fmtCPUs(round6(most)), fmtCPUs(round6(most)))
	}
	return nil
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// parseEnd reads one end of the range: 0 for "".
func parseEnd(flag, v string, period time.Duration) (float64, error) {
	if v == "" {
		return 0, nil
	}
	c, ok := config.ParseCPUs(v)
	if !ok || !(c > 0 && c <= config.MaxCPUs) {
		return 0, badinput.Errorf(flag, "invalid --%s %q: want a number of CPUs above 0 and at most %d, %s", flag, v, config.MaxCPUs, config.CPUsExample)
	}
	if q := bandwidth.Quota(c, period); q < config.MinQuota {
		return 0, badinput.Errorf(flag, "invalid --%s %q: a quota of %v per %v period, below the kernel's 1ms minimum; want at least %s CPUs, or a longer --period", flag, v, q, period, fmtCPUs(MinCPUs(period)))
	}
	return c, nil
}

// MinCPUs is the smallest limit the kernel takes at period: a quota of 1 ms.
func MinCPUs(period time.Duration) float64 {
	return float64(config.MinQuota) / float64(period)
}

// Levels are the grid's CPU levels, increasing, each rounded to a whole
// microsecond of quota (the kernel's unit, as --cpus rounds): the low end,
// then a step's CPUs the multiples of it above (0.1: 0.7, 0.8, 0.9, the
// limits a person writes, 700m) or a percentage's geometric steps, and the
// high end itself. An end not given comes from def, the default range,
// widened to the step's multiples; an error names the flag the user can
// change.
func (g Grid) Levels(def Range) ([]float64, error) {
	lo, hi := g.Min, g.Max
	step := g.Step.CPUs
	if lo == 0 {
		lo = def.Min
		if d := math.Floor(lo/step+1e-9) * step; step > 0 && d >= MinCPUs(g.Period) {
			lo = d
		}
	}
	if hi == 0 {
		hi = def.Max
		if step > 0 {
			hi = math.Ceil(hi/step-1e-9) * step
		}
	}
	if !(lo < hi) {
		return nil, g.outOfOrder(lo, hi, def)
	}
	if bandwidth.Quota(lo, g.Period) < config.MinQuota {
		// Only a default can be: ParseGrid refuses such a --cpus-min.
		return nil, badinput.Errorf("cpus-min", "the default --cpus-min %s (%s) is below the kernel's 1ms of quota per %v period; give --cpus-min", fmtCPUs(lo), def.Why, g.Period)
	}
	n := g.count(lo, hi)
	if n > MaxLevels {
		return nil, badinput.Errorf("step", "invalid --step %q: more than %d levels from %s to %s CPUs; want a coarser step or a narrower range", g.Step, MaxLevels, fmtCPUs(lo), fmtCPUs(hi))
	}
	var out []float64
	add := func(c float64) {
		c = bandwidth.QuotaCPUs(c, g.Period)
		if len(out) == 0 || c > out[len(out)-1] {
			out = append(out, c)
		}
	}
	add(lo)
	if g.Step.Percent > 0 {
		for i := 1; i < n-1; i++ {
			add(g.level(lo, i))
		}
	} else {
		for k := math.Floor(lo/step+1e-9) + 1; k*step < hi-1e-9; k++ {
			add(k * step)
		}
	}
	add(hi)
	return out, nil
}

// outOfOrder refuses a range whose low end is not below its high one,
// naming the flag the user gave.
func (g Grid) outOfOrder(lo, hi float64, def Range) error {
	switch {
	case g.Min > 0 && g.Max > 0:
		return badinput.Errorf("cpus-min", "invalid --cpus-min %s: not below --cpus-max %s; want the low end below the high one", fmtCPUs(lo), fmtCPUs(hi))
	case g.Min > 0:
		return badinput.Errorf("cpus-min", "invalid --cpus-min %s: not below the default --cpus-max %s (%s); give --cpus-max too, or a lower --cpus-min", fmtCPUs(lo), fmtCPUs(hi), def.Why)
	case g.Max > 0:
		return badinput.Errorf("cpus-max", "invalid --cpus-max %s: not above the default --cpus-min %s (%s); give --cpus-min too, or a higher --cpus-max", fmtCPUs(hi), fmtCPUs(lo), def.Why)
	}
	return badinput.Errorf("cpus-min", "the default range from %s to %s CPUs is empty (%s); give --cpus-min and --cpus-max", fmtCPUs(lo), fmtCPUs(hi), def.Why)
}

// count is how many levels lie in [lo, hi], hi among them: those below hi
// by the step, and hi. The float tolerance keeps 0.1 to 1 by 0.1 from
// counting 0.99999 as a level of its own beside 1.
func (g Grid) count(lo, hi float64) int {
	var k float64 // steps from lo to hi
	if g.Step.Percent > 0 {
		k = math.Log(hi/lo) / math.Log1p(g.Step.Percent/100)
	} else {
		k = (hi - lo) / g.Step.CPUs
	}
	if k > MaxLevels { // also +Inf, before the conversion
		return MaxLevels + 1
	}
	return int(math.Ceil(k-1e-9)) + 1
}

// level is the i-th geometric level above lo.
func (g Grid) level(lo float64, i int) float64 {
	return lo * math.Pow(1+g.Step.Percent/100, float64(i))
}

func periodUs(period time.Duration) float64 { return float64(period / time.Microsecond) }

func fmtCPUs(c float64) string { return strconv.FormatFloat(c, 'f', -1, 64) }

// Margins of the default range: the run-to-run variation of a program's
// mean and peak usage, on our machines a few percent, with room to spare.
const (
	lowMargin  = 0.9
	highMargin = 1.1
)

// DefaultRange is the range searched where the user gave no end, from the
// unlimited arm's usage trace t (its interval, 100 ms by default), the
// SLO's slack (SLO.Slack of the unlimited arm's figure), the CPUs the
// program may use and the period. It holds the answer in practice:
//
//   - Below the mean usage over the slack no limit passes. A limit of L
//     CPUs gives the program at most L CPU-seconds a second, so the same
//     work takes at least mean/L times as long: a closed loop's durations
//     grow by that factor, and an open loop at a fixed rate is overloaded
//     (its queue grows with the window) as soon as L < mean. A bound slack
//     times the unlimited figure thus needs L ≥ mean/slack.
//   - At the peak usage over one interval no interval of the unlimited arm
//     would have been throttled (for periods at least as long as the
//     interval), so the windows run as unlimited ones, which pass where
//     the unlimited arm passed. A shorter period can be throttled within an
//     interval whose usage it does not see: then the high end is all the
//     CPUs.
//
// Each end has a margin for run-to-run variation; the low end is at least
// the kernel's minimum quota, and the high end at most numCPU (a limit at
// all the CPUs is as good as none) and above the low end.
func DefaultRange(t usage.Trace, slack float64, numCPU int, period time.Duration) Range {
	s := usage.Summarize(t, 0)
	if !(slack >= 1) {
		slack = 1 // a bound the unlimited arm misses: no limit passes either
	}
	lo := math.Max(lowMargin*s.Mean/slack, MinCPUs(period))
	hi, why := highMargin*s.Max, fmt.Sprintf("%.0f%% of its %v peak (%s CPUs)", 100*highMargin, t.Interval, fmtCPUs(round3(s.Max)))
	if period < t.Interval || s.N == 0 {
		hi, why = float64(numCPU), fmt.Sprintf("all %d CPUs: a %v period's peak is unseen at %v", numCPU, period, t.Interval)
	}
	if numCPU > 0 && hi > float64(numCPU) {
		hi, why = float64(numCPU), fmt.Sprintf("all %d CPUs, below %.0f%% of its %v peak (%s CPUs)", numCPU, 100*highMargin, t.Interval, fmtCPUs(round3(s.Max)))
	}
	if !(hi > lo) {
		hi, why = 2*lo, "twice the low end, as it used so little"
	}
	return Range{Min: lo, Max: hi, Why: fmt.Sprintf("from %.0f%% of the unlimited arm's mean usage (%s CPUs) over the SLO's slack (%s) to %s",
		100*lowMargin, fmtCPUs(round3(s.Mean)), fmtCPUs(round3(slack)), why)}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
