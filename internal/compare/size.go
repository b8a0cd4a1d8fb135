package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/report"
)

// A size result is compared as what it answers: the recommendation, and at
// each level (cpus, burst) both sides measured, the share of its counted
// windows that met the target, and the level's verdict. It is read here
// from the keys docs/size.md makes a contract, not as internal/sizing's
// Result, which would link the runner (TestConfigurationPullsNoMachinery).

// SizeSide is one size result as compare reads it.
type SizeSide struct {
	Name           string       `json:"-"` // its file
	SLO            string       `json:"slo"`
	Loop           string       `json:"loop"`
	Window         string       `json:"window"`
	PeriodUs       int64        `json:"period_us"`
	Recommendation *SizeSetting `json:"recommendation"`
	Arms           []SizeArm    `json:"arms"`
	Windows        int          `json:"windows"`
	Incomplete     bool         `json:"incomplete"`
	Stopped        string       `json:"stopped"`
}

// SizeSetting is a recommendation: cpus null with unlimited true for no
// limit.
type SizeSetting struct {
	CPUs      *float64 `json:"cpus"`
	BurstUs   int64    `json:"burst_us"`
	Unlimited bool     `json:"unlimited,omitempty"`
}

// SizeArm is one setting measured: cpus null for the unlimited arm.
type SizeArm struct {
	CPUs    *float64 `json:"cpus"`
	BurstUs int64    `json:"burst_us"`
	Rule    string   `json:"rule,omitempty"`
	Verdict string   `json:"verdict"`
	Windows []struct {
		Pass    bool   `json:"pass"`
		Refused string `json:"refused"`
	} `json:"windows"`
}

// LoadSizeFile reads the size result in path, named which (OLD, NEW) in
// its errors, which are bad input.
func LoadSizeFile(which, path string) (SizeSide, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return SizeSide{}, badinput.Errorf("", "invalid %s %q: %v", which, path, badinput.PathCause(err))
	}
	var s SizeSide
	if err := json.Unmarshal(data, &s); err != nil {
		return SizeSide{}, badinput.Errorf("", "invalid %s %q: a broken size result: %v", which, path, err)
	}
	s.Name = path
	return s, nil
}

// SizeTally is one side's windows at a level: those that met the target,
// those counted (not refused), those refused, and the level's verdict.
type SizeTally struct {
	Passes  int    `json:"passes"`
	Counted int    `json:"counted"`
	Refused int    `json:"refused"`
	Verdict string `json:"verdict"`
}

// Rate is the share of counted windows that met the target; NaN with none.
func (t SizeTally) Rate() float64 {
	if t.Counted == 0 {
		return math.NaN()
	}
	return float64(t.Passes) / float64(t.Counted)
}

// SizeLevel is a level both sides measured, each side's windows there.
type SizeLevel struct {
	CPUs     *float64 // nil: the unlimited arm
	BurstUs  int64
	Rule     string // the usage rule whose limit it is, on either side ("": the search's)
	Old, New SizeTally
}

// SizeResult is two size results compared.
type SizeResult struct {
	Old, New SizeSide
	// Levels are those measured on both sides: the unlimited arm first,
	// then by CPUs and burst.
	Levels []SizeLevel
	// OnlyOld and OnlyNew name the levels one side alone measured.
	OnlyOld, OnlyNew []string
	Warnings         []report.Warning
}

// NoSizeTest says what compare does not do with size results.
const NoSizeTest = "no significance test is made for size results: each verdict is its own side's sequential test at its confidence, and a pass rate that differs between the sides may be chance; compare exits 0 whatever they say"

// CompareSize compares two size results.
func CompareSize(old, new SizeSide) SizeResult {
	res := SizeResult{Old: old, New: new}
	ol, nl := sizeLevels(old), sizeLevels(new)
	for _, k := range orderedKeys(ol, nl) {
		o, inOld := ol[k]
		n, inNew := nl[k]
		switch {
		case inOld && inNew:
			res.Levels = append(res.Levels, SizeLevel{CPUs: o.arm.CPUs, BurstUs: o.arm.BurstUs, Rule: cmp.Or(o.arm.Rule, n.arm.Rule), Old: o.tally, New: n.tally})
		case inOld:
			res.OnlyOld = append(res.OnlyOld, levelName(o.arm))
		default:
			res.OnlyNew = append(res.OnlyNew, levelName(n.arm))
		}
	}
	for _, d := range []struct{ what, o, n string }{
		{"targets", old.SLO, new.SLO}, {"loops", old.Loop, new.Loop}, {"windows", old.Window, new.Window},
		{"periods", usText(old.PeriodUs), usText(new.PeriodUs)},
	} {
		if d.o != d.n {
			res.Warnings = append(res.Warnings, report.Warn(report.KindQuestionsDiffer, "the %s differ (old %s, new %s): each side answers its own question", d.what, d.o, d.n))
		}
	}
	for _, s := range []SizeSide{old, new} {
		if s.Incomplete {
			res.Warnings = append(res.Warnings, report.Warn(report.KindSearchStopped, "%s stopped before its search ended (%s): its recommendation is so far", s.Name, s.Stopped))
		}
	}
	return res
}

type sizeLevel struct {
	arm   SizeArm
	tally SizeTally
}

// sizeLevels are a side's arms by their level's key; of two arms at one
// level (two usage rules' equal limits) the first.
func sizeLevels(s SizeSide) map[string]sizeLevel {
	out := map[string]sizeLevel{}
	for _, a := range s.Arms {
		k := levelKey(a)
		if _, ok := out[k]; ok {
			continue
		}
		t := SizeTally{Verdict: a.Verdict}
		for _, w := range a.Windows {
			switch {
			case w.Refused != "":
				t.Refused++
			case w.Pass:
				t.Passes++
				t.Counted++
			default:
				t.Counted++
			}
		}
		out[k] = sizeLevel{a, t}
	}
	return out
}

// levelKey names a level: its CPUs to a millionth (as --cpus writes them)
// and its burst.
func levelKey(a SizeArm) string {
	c := "unlimited"
	if a.CPUs != nil {
		c = strconv.FormatFloat(math.Round(*a.CPUs*1e6)/1e6, 'f', -1, 64)
	}
	return c + "/" + strconv.FormatInt(a.BurstUs, 10)
}

// orderedKeys are both sides' levels: the unlimited arm first, then by
// CPUs and burst.
func orderedKeys(a, b map[string]sizeLevel) []string {
	var keys []string
	arms := map[string]SizeArm{}
	for _, m := range []map[string]sizeLevel{a, b} {
		for k, l := range m {
			if _, ok := arms[k]; !ok {
				keys, arms[k] = append(keys, k), l.arm
			}
		}
	}
	slices.SortFunc(keys, func(x, y string) int {
		p, q := arms[x], arms[y]
		switch {
		case p.CPUs == nil || q.CPUs == nil:
			return boolInt(p.CPUs != nil) - boolInt(q.CPUs != nil)
		case *p.CPUs != *q.CPUs:
			return boolInt(*p.CPUs > *q.CPUs)*2 - 1
		}
		return int(p.BurstUs - q.BurstUs)
	})
	return keys
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// levelName is a level for people: unlimited, 0.4 CPUs, 0.4 CPUs burst
// 20ms, 0.27 CPUs (vpa).
func levelName(a SizeArm) string {
	s := cpusText(a.CPUs)
	if a.BurstUs > 0 {
		s += " burst " + usText(a.BurstUs)
	}
	if a.Rule != "" {
		s += " (" + a.Rule + ")"
	}
	return s
}

func cpusText(c *float64) string {
	if c == nil {
		return "unlimited"
	}
	return strconv.FormatFloat(math.Round(*c*1e6)/1e6, 'f', -1, 64) + " CPUs"
}

func usText(us int64) string { return (time.Duration(us) * time.Microsecond).String() }

// recommendationText is a side's recommendation in a few words.
func recommendationText(s SizeSide) string {
	r := s.Recommendation
	switch {
	case r == nil:
		return "none (not even the unlimited arm met " + s.SLO + ")"
	case r.Unlimited || r.CPUs == nil:
		return "no limit (no level met " + s.SLO + ")"
	}
	t := cpusText(r.CPUs)
	if r.BurstUs > 0 {
		t += " burst " + usText(r.BurstUs)
	}
	if s.Incomplete {
		t += " (so far)"
	}
	return t
}

// RecommendationChange is the new recommendation's CPUs less the old's;
// NaN where either side has none.
func (r SizeResult) RecommendationChange() float64 {
	o, n := r.Old.Recommendation, r.New.Recommendation
	if o == nil || n == nil || o.CPUs == nil || n.CPUs == nil {
		return math.NaN()
	}
	return math.Round((*n.CPUs-*o.CPUs)*1e6) / 1e6
}

// sideLine is a side's header line: its file, its target and its windows.
func sideLine(which string, s SizeSide) string {
	return fmt.Sprintf("%s: %s: %s on the %s loop, windows of %s, period %s, %d windows", which, s.Name, s.SLO, s.Loop, s.Window, usText(s.PeriodUs), s.Windows)
}

// recommendationLine says both sides' recommendations and the change.
func (r SizeResult) recommendationLine() string {
	s := "recommendation: old " + recommendationText(r.Old) + ", new " + recommendationText(r.New)
	if d := r.RecommendationChange(); !math.IsNaN(d) {
		if d == 0 {
			s += ": the same"
		} else {
			s += fmt.Sprintf(": %+g CPUs", d)
		}
	}
	return s
}

// tallyText is a side's verdict and windows at a level: pass 5/6 (83%),
// with the refused.
func tallyText(t SizeTally) string {
	s := fmt.Sprintf("%s %d/%d", t.Verdict, t.Passes, t.Counted)
	if t.Counted > 0 {
		s += fmt.Sprintf(" (%.0f%%)", 100*t.Rate())
	}
	if t.Refused > 0 {
		s += fmt.Sprintf(" +%d refused", t.Refused)
	}
	return s
}

// onlyLines name the levels one side alone measured.
func (r SizeResult) onlyLines() []string {
	var out []string
	if len(r.OnlyOld) > 0 {
		out = append(out, "only in old: "+strings.Join(r.OnlyOld, ", "))
	}
	if len(r.OnlyNew) > 0 {
		out = append(out, "only in new: "+strings.Join(r.OnlyNew, ", "))
	}
	return out
}
