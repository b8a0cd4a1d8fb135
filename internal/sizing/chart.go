package sizing

import (
	"math"

	"github.com/throttlebench/throttlebench/internal/plot"
)

// Chart is the result's levels as --plot draws them (size's, and show's
// of a saved result): each counted window's figure at its level, against
// the bound and the bracket. The unlimited arm has no CPUs to stand at.
func Chart(r Result) plot.SizeChart {
	c := plot.SizeChart{Title: "throttlebench size --slo '" + r.SLO + "'", Stat: r.stat(), BoundMs: math.NaN(), PassCPUs: r.Bracket.PassCPUs, FailCPUs: r.Bracket.FailCPUs}
	if r.BoundMs != nil {
		c.BoundMs = *r.BoundMs
	}
	for _, a := range r.Arms {
		if a.CPUs == nil {
			continue
		}
		arm := plot.SizeArm{CPUs: *a.CPUs}
		for _, w := range a.Windows {
			if w.Refused == "" && w.Figure > 0 { // 0: no figure (nothing completed)
				arm.Figures, arm.Passes = append(arm.Figures, w.Figure), append(arm.Passes, w.Pass)
				arm.Contended = append(arm.Contended, w.Contention != nil && w.Contention.Contended)
			}
		}
		c.Arms = append(c.Arms, arm)
	}
	return c
}

// HasLevels says whether a level was measured: without one there is nothing
// for Chart to draw (size draws nothing then, and says so).
func (r Result) HasLevels() bool {
	for _, a := range r.Arms {
		if a.CPUs != nil {
			return true
		}
	}
	return false
}
