package compare

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

// What --fail-on accepts: which verdicts fail a comparison (exit 3).
const (
	FailOnRegression = "regression"
	FailOnChange     = "change"
	FailOnNever      = "never"
)

// FailOns are the values of --fail-on.
var FailOns = []string{FailOnRegression, FailOnChange, FailOnNever}

// Flags are the compare command's choices as given.
type Flags struct {
	Alpha                                                                  float64
	Threshold, CPUThreshold, FailOn, Format, Match, Output, Columns, Judge string
}

// Run is what the flags resolve to: the comparison's options, and what
// becomes of its result.
type Run struct {
	Options
	FailOn, Format, Output string
	Columns                table.Columns
}

// Resolve checks every flag before any file is read; bad input is a
// badinput.Error.
func (f Flags) Resolve() (Run, error) {
	if !(f.Alpha > 0 && f.Alpha < 1) {
		return Run{}, badinput.Errorf("alpha", "invalid --alpha %v: must be between 0 and 1 (exclusive), such as 0.05", f.Alpha)
	}
	t, err := percent("threshold", f.Threshold, DefaultThresholdPct)
	if err != nil {
		return Run{}, err
	}
	ct, err := percent("cpu-threshold", f.CPUThreshold, DefaultCPUThresholdPct)
	if err != nil {
		return Run{}, err
	}
	if err := badinput.Choice("fail-on", f.FailOn, FailOns); err != nil {
		return Run{}, err
	}
	if err := badinput.Choice("format", f.Format, Formats); err != nil {
		return Run{}, err
	}
	if err := badinput.Choice("judge", f.Judge, Judges); err != nil {
		return Run{}, err
	}
	match, err := ParseMatch(f.Match)
	if err != nil {
		return Run{}, badinput.Errorf("match", "invalid --match %q: want a comma-separated list of %s, or of +KEY and -KEY to change the default",
			f.Match, strings.Join(Keys(), ", "))
	}
	if err := config.Output("output", f.Output); err != nil {
		return Run{}, err
	}
	cols, err := config.Columns(f.Columns, f.Format, Columns)
	if err != nil {
		return Run{}, err
	}
	return Run{Options: Options{Match: match, Alpha: f.Alpha, ThresholdPct: t, CPUThresholdPct: ct, Judge: f.Judge}, FailOn: f.FailOn, Format: f.Format, Output: f.Output,
		Columns: cols}, nil
}

// percent reads a threshold flag: 5 or 5%, at least 0; def is its
// default, for the example in the refusal.
func percent(flag, v string, def float64) (float64, error) {
	t, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "%")), 64)
	if err != nil || !(t >= 0) || math.IsInf(t, 0) {
		return 0, badinput.Errorf(flag, "invalid --%s %q: want a percentage ≥ 0, such as %v or %v%%", flag, v, def, def)
	}
	return t, nil
}

// LoadFile reads the results in one file, named which (OLD, NEW, --from)
// in its errors; a file that cannot be read, or holds no result, is bad
// input.
func LoadFile(which, path string) ([]report.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, badinput.Errorf(strings.TrimPrefix(which, "--"), "invalid %s %q: %v; want a result file written by throttlebench run or sweep", which, path, badinput.PathCause(err))
	}
	defer f.Close()
	reps, err := report.Load(f)
	if err != nil {
		return nil, badinput.Errorf(strings.TrimPrefix(which, "--"), "invalid %s %q: %v", which, path, err)
	}
	return reps, nil
}

// Failed is the verdict of --fail-on: the significant changes it counts
// (regressions; with change, improvements too), the first five of them
// named, in one line; nil when there are none, or with never.
func (res Result) Failed(failOn string) error {
	if failOn == FailOnNever {
		return nil
	}
	var flagged []Row
	for _, r := range res.Rows {
		if r.Verdict == Regression || (failOn == FailOnChange && r.Verdict == Improvement) {
			flagged = append(flagged, r)
		}
	}
	if len(flagged) == 0 {
		return nil
	}
	what := "significant regression"
	if failOn == FailOnChange {
		what = "significant change"
	}
	var list []string
	for i, r := range flagged {
		if i == 5 {
			list = append(list, fmt.Sprintf("and %d more", len(flagged)-i))
			break
		}
		pct, p, what := r.Judged()
		list = append(list, fmt.Sprintf("%s: %s %+.1f%% (%s)", r.Key, what, pct, pText(p)))
	}
	return fmt.Errorf("%s in %d of %d configurations: %s", what, len(flagged), len(res.Rows), strings.Join(list, "; "))
}
