package options

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/compare"
)

func compareDefaults() Compare {
	return Compare{Alpha: compare.DefaultAlpha, Threshold: "5%", CPUThreshold: "3%", FailOn: compare.FailOnRegression, Format: "text", Match: "workload,cost", Judge: compare.JudgeCode}
}

func TestCompareResolve(t *testing.T) {
	r, err := compareDefaults().Resolve()
	require.NoError(t, err)
	assert.Equal(t, compare.Run{Options: compare.Options{Match: []string{"workload", "cost"}, Alpha: 0.05, ThresholdPct: 5, CPUThresholdPct: 3, Judge: compare.JudgeCode}, FailOn: "regression", Format: "text"}, r)

	f := compareDefaults()
	f.Threshold, f.CPUThreshold, f.Match = " 12.5 ", "2", "-node"
	r, err = f.Resolve()
	require.NoError(t, err)
	assert.Equal(t, 12.5, r.ThresholdPct)
	assert.Equal(t, 2.0, r.CPUThresholdPct)
	assert.NotContains(t, r.Match, "node")
}

// Every refusal is a badinput.Error (exit 2) naming the flag.
func TestCompareRefuse(t *testing.T) {
	for _, tc := range []struct {
		set  func(*Compare)
		flag string
		want string
	}{
		{func(f *Compare) { f.Alpha = 1 }, "alpha", "invalid --alpha 1: must be between 0 and 1 (exclusive), such as 0.05"},
		{func(f *Compare) { f.Threshold = "Inf%" }, "threshold", `invalid --threshold "Inf%": want a percentage ≥ 0, such as 5 or 5%`},
		{func(f *Compare) { f.CPUThreshold = "-1%" }, "cpu-threshold", `invalid --cpu-threshold "-1%": want a percentage ≥ 0, such as 3 or 3%`},
		{func(f *Compare) { f.CPUThreshold = "" }, "cpu-threshold", `invalid --cpu-threshold "": want a percentage ≥ 0`},
		{func(f *Compare) { f.FailOn = "always" }, "fail-on", "want one of regression, change, never"},
		{func(f *Compare) { f.Format = "gobench" }, "format", "want one of text, markdown, json"},
		{func(f *Compare) { f.Match = "workload,-node" }, "match", `invalid --match "workload,-node": want a comma-separated list of workload, cost,`},
		{func(f *Compare) { f.Output = "/nonexistent/dir/x.txt" }, "output", "does not exist"},
	} {
		f := compareDefaults()
		tc.set(&f)
		_, err := f.Resolve()
		var e *badinput.Error
		require.ErrorAs(t, err, &e, tc.want)
		assert.Equal(t, tc.flag, e.Param, err.Error())
		assert.Contains(t, err.Error(), tc.want)
	}
}
