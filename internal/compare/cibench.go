package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/throttlebench/throttlebench/internal/render"
)

// metrics are a comparison as the figures CI tools keep, through render's
// encoders (one writer per format): for each configuration compared, the
// new side's median wall time and CPU time per iteration with their
// confidence intervals, and the changes from old, the CPU time's with the
// interval the two medians allow; the verdict, its cause and why in the
// tooltip. A tool that tracks a series over commits keeps the new side;
// the change says what this pair decided.
func metrics(res Result) []render.Metric {
	var ms []render.Metric
	for _, r := range res.Rows {
		if r.New.N == 0 {
			continue
		}
		name := "Compare/" + strings.ReplaceAll(r.Key, " ", "/")
		extra := fmt.Sprintf("verdict: %s", r.Verdict)
		if r.Cause != "" {
			extra += fmt.Sprintf("\ncause: %s", r.Cause)
		}
		if why := r.Why(); why != "" {
			extra += "\nwhy: " + why
		}
		extra += fmt.Sprintf("\nold: %s\nnew: %s", res.Old.Name, res.New.Name)
		add := func(measure, unit string, v, lo, hi float64) {
			if math.IsNaN(v) {
				return
			}
			m := render.Metric{Name: name, Measure: measure, Unit: unit, Value: v, Extra: extra}
			if !math.IsNaN(lo) && !math.IsNaN(hi) && lo <= v && v <= hi {
				m.Lower, m.Upper = &lo, &hi
			}
			ms = append(ms, m)
		}
		add("wall_median_ms", "ms", r.New.Center, r.New.Lo, r.New.Hi)
		add("wall_change_pct", "%", r.ChangePct, math.NaN(), math.NaN())
		if c := r.CPU; c != nil {
			_, lo, hi := medianCI(r.New.CPU)
			add("cpu_median_ms", "ms", c.NewMs, lo, hi)
			add("cpu_change_pct", "%", c.Pct, c.LoPct, c.HiPct)
		}
	}
	return ms
}
