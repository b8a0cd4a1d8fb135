package sizing

import (
	"fmt"
	"math"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/target"
)

// Formats are what size writes: its own, and the recommendation in the
// formats CI tools read.
var Formats = append([]string{"text", "json"}, render.CIFormats...)

// Plan is size resolved: how each window runs and what the search needs.
type Plan struct {
	// Base is every window's run without a limit, resolved once from the
	// flags (the unlimited arm's); a level's differs in its limits alone.
	Base plan.Options
	// Open: the open loop's windows (latency's); else the closed loop's.
	Open   bool
	SLO    size.SLO
	Grid   size.Grid
	Test   size.Sequential
	Budget time.Duration
	Plot   string
	// CountBusy is --busy count: a window on a busy machine counts, marked
	// busy, where by default it is refused.
	CountBusy bool
	// Bursts are --burst's values, ascending: a search each ([0] without).
	Bursts []time.Duration
	// Window is a window's length as the result says it: "2s",
	// "5 iterations".
	Window string
	// WindowLength is an open-loop window's length, for the bar's estimate;
	// 0 for the closed loop's, whose length is what it measures.
	WindowLength time.Duration
	// Target is --target with --serve's server (nil without), each window
	// a fresh server in the slice; Rule judges its requests.
	Target *target.Target
	Rule   build.FailureRule
	// Argv is the command after -- (the closed loop), nil for none.
	Argv []string
}

// Options is one window's run at cpus (math.Inf(1): unlimited) and
// burst: Base with the level's quota and burst, as latency or run would
// plan it with --cpus and --burst given. The grid, the rules and the
// search keep a level's quota at the kernel's least and a burst within
// it: a limit outside them is the engine's error, not the user's.
func (p Plan) Options(cpus float64, burst time.Duration) (plan.Options, error) {
	o := p.Base
	if math.IsInf(cpus, 1) {
		return o, nil
	}
	period := o.Limits.Period
	o.Limits = bandwidth.Limits{Period: period, Quota: bandwidth.Quota(cpus, period), Burst: burst}
	o.LimitsSet = true
	// The harness's floor is the same at every limit: the unlimited arm's
	// windows measure it, a level's skip the second it costs.
	o.Open.NoFloor = true
	if q := o.Limits.Quota; q < config.MinQuota || burst > q {
		return o, fmt.Errorf("size: no level at %.4g CPUs with a %v burst: a quota of %v per %v period, which the kernel refuses", cpus, burst, q, period)
	}
	return o, nil
}

// Period is the grid's period.
func (p Plan) Period() time.Duration { return p.Grid.Period }
