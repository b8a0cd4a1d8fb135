package options

import (
	"math"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/config"
)

// Compare are the compare command's choices as given.
type Compare struct {
	Alpha                                                                  float64
	Threshold, CPUThreshold, FailOn, Format, Match, Output, Columns, Judge string
}

// Resolve checks every flag before any file is read; bad input is a
// badinput.Error.
func (f Compare) Resolve() (compare.Run, error) {
	if !(f.Alpha > 0 && f.Alpha < 1) {
		return compare.Run{}, badinput.Errorf("alpha", "invalid --alpha %v: must be between 0 and 1 (exclusive), such as 0.05", f.Alpha)
	}
	t, err := percent("threshold", f.Threshold, compare.DefaultThresholdPct)
	if err != nil {
		return compare.Run{}, err
	}
	ct, err := percent("cpu-threshold", f.CPUThreshold, compare.DefaultCPUThresholdPct)
	if err != nil {
		return compare.Run{}, err
	}
	if err := badinput.Choice("fail-on", f.FailOn, compare.FailOns); err != nil {
		return compare.Run{}, err
	}
	if err := badinput.Choice("format", f.Format, compare.Formats); err != nil {
		return compare.Run{}, err
	}
	if err := badinput.Choice("judge", f.Judge, compare.Judges); err != nil {
		return compare.Run{}, err
	}
	match, err := compare.ParseMatch(f.Match)
	if err != nil {
		return compare.Run{}, badinput.Errorf("match", "invalid --match %q: want a comma-separated list of %s, or of +KEY and -KEY to change the default",
			f.Match, strings.Join(compare.Keys(), ", "))
	}
	if err := Output("output", f.Output); err != nil {
		return compare.Run{}, err
	}
	cols, err := config.Columns(f.Columns, f.Format, compare.Columns)
	if err != nil {
		return compare.Run{}, err
	}
	return compare.Run{Options: compare.Options{Match: match, Alpha: f.Alpha, ThresholdPct: t, CPUThresholdPct: ct, Judge: f.Judge}, FailOn: f.FailOn, Format: f.Format, Output: f.Output,
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
