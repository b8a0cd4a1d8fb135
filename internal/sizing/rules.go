package sizing

import (
	"context"
	"math"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/size"
)

// ruleArms measures the SLO at each usage rule's limit, as a level of the
// search is measured (its sequential test, up to its cap), beside the
// search's answer: which rule would have missed the target, which paid for
// idle CPU. A limit the search measured already is read from its arm. The
// budget or a cancel leaves the rest unmeasured (verdict null).
func (e Engine) ruleArms(ctx context.Context, p Plan, r *Result, unlimitedMs float64) error {
	for i := range r.UsageRules {
		rule := &r.UsageRules[i]
		if rule.CPUs == nil {
			continue
		}
		cpus := ruleCPUs(*rule.CPUs, p)
		if arm := r.levelArm(cpus); arm != nil {
			rule.Verdict = ptr(arm.Verdict)
			continue
		}
		arm := Arm{Order: len(r.Arms) + 1, CPUs: ptr(cpus), QuotaUs: ptr(quotaUs(cpus, p.Grid.Period)), Rule: rule.Name, Verdict: size.Undecided}
		o, err := p.Options(cpus, 0)
		if err != nil {
			return err
		}
		ans, err := e.level(ctx, p, o, &arm, func(w *Window) {
			if w.Refused == "" {
				w.Pass = !w.short && p.SLO.Meets(w.Figure, unlimitedMs)
			}
		})
		if err != nil {
			return err
		}
		if ans.Incomplete && len(arm.Windows) == 0 {
			r.Warnings = append(r.Warnings, report.Warn(report.KindRuleUnmeasured, "the %s rule's limit was not measured before the search stopped", rule.Name))
			return nil
		}
		r.Windows += len(arm.Windows)
		r.Arms = append(r.Arms, arm)
		rule.Verdict = ptr(arm.Verdict)
	}
	var arms []size.Arm
	for _, a := range r.Arms {
		if a.CPUs != nil {
			arms = append(arms, size.Arm{CPUs: *a.CPUs, Verdict: a.Verdict})
		}
	}
	r.Warnings = append(r.Warnings, size.Contradictions(arms)...)
	return nil
}

// ruleCPUs is a rule's limit as the kernel takes it at the period: a whole
// microsecond of quota (bandwidth.QuotaCPUs), at least its minimum.
func ruleCPUs(cpus float64, p Plan) float64 {
	return math.Max(bandwidth.QuotaCPUs(cpus, p.Grid.Period), size.MinCPUs(p.Grid.Period))
}

// levelArm is the search's arm at cpus, or nil.
func (r *Result) levelArm(cpus float64) *Arm {
	for i, a := range r.Arms {
		if a.CPUs != nil && a.Rule == "" && a.BurstUs == 0 && math.Abs(*a.CPUs-cpus) < 1e-9 {
			return &r.Arms[i]
		}
	}
	return nil
}
