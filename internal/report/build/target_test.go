package build

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
)

func TestParseAcceptStatus(t *testing.T) {
	got, err := ParseAcceptStatus(DefaultAcceptStatus)
	require.NoError(t, err)
	assert.Equal(t, [][2]int{{200, 299}, {300, 399}}, got)
	got, err = ParseAcceptStatus("200-299, 404,5XX")
	require.NoError(t, err)
	assert.Equal(t, [][2]int{{200, 299}, {404, 404}, {500, 599}}, got)
	for _, bad := range []string{"", "2", "99", "600", "300-200", "6xx", "abc", "200-", "2xx,"} {
		_, err := ParseAcceptStatus(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestParseMaxFailures(t *testing.T) {
	pct, share, _, err := ParseMaxFailures("0.5%")
	require.NoError(t, err)
	assert.True(t, pct)
	assert.Equal(t, 0.5, share)
	pct, _, count, err := ParseMaxFailures("5")
	require.NoError(t, err)
	assert.False(t, pct)
	assert.Equal(t, 5, count)
	for _, bad := range []string{"", "-1", "101%", "-1%", "x%", "1.5", "%"} {
		_, _, _, err := ParseMaxFailures(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// rule is the flags' rule with accept and max as given.
func rule(t *testing.T, accept, maxFailures string) FailureRule {
	t.Helper()
	a, err := ParseAcceptStatus(accept)
	require.NoError(t, err)
	pct, share, count, err := ParseMaxFailures(maxFailures)
	require.NoError(t, err)
	return FailureRule{Accept: a, Percent: pct, MaxPercent: share, MaxCount: count, AcceptSpec: accept, MaxSpec: maxFailures}
}

// targetRun is a --target result with these counts.
func targetRun(h report.HTTPCounts) *report.Latency {
	for _, n := range h.Statuses {
		h.Responses += n
	}
	h.Requests = h.Responses + h.Timeouts + h.ConnectionErrors + h.Failed + h.Cancelled
	return &report.Latency{Config: report.LatencyConfig{TargetConfig: &report.TargetConfig{}}, TargetResult: &report.TargetResult{HTTP: h}}
}

// The pass/fail rule: no success, or more failures than --max-failures
// allows, fails; what failed is named, by kind.
func TestTargetFailure(t *testing.T) {
	def := rule(t, DefaultAcceptStatus, DefaultMaxFailures)
	for _, c := range []struct {
		name string
		h    report.HTTPCounts
		f    FailureRule
		want string // "" passes
	}{
		{"nothing listening", report.HTTPCounts{ConnectionErrors: 24}, def, "no request succeeded: 24 of 24 requests failed (24 connection errors), more than --max-failures 1% allows (0)"},
		{"all 404", report.HTTPCounts{Statuses: map[int]int{404: 20}}, def,
			"no request succeeded: 20 of 20 requests failed (20 responses 404), more than --max-failures 1% allows (0); --accept-status says which statuses are a success (now 2xx,3xx)"},
		{"all 404, accepted", report.HTTPCounts{Statuses: map[int]int{404: 20}}, rule(t, "200-299,404", "1%"), ""},
		{"all 500", report.HTTPCounts{Statuses: map[int]int{500: 7, 503: 3}}, def, "no request succeeded: 10 of 10 requests failed (7 responses 500, 3 responses 503), more than --max-failures 1% allows (0)"},
		{"redirects succeed", report.HTTPCounts{Statuses: map[int]int{301: 5, 200: 5}}, def, ""},
		{"1% fails", report.HTTPCounts{Statuses: map[int]int{200: 99}, Timeouts: 1}, def, ""},
		{"2% fails", report.HTTPCounts{Statuses: map[int]int{200: 98}, Timeouts: 1, ConnectionErrors: 1}, def,
			"2 of 100 requests failed (1 connection error, 1 timeout), more than --max-failures 1% allows (1)"},
		{"dies mid-run", report.HTTPCounts{Statuses: map[int]int{200: 40}, ConnectionErrors: 260}, def,
			"260 of 300 requests failed (260 connection errors), more than --max-failures 1% allows (3)"},
		{"a count", report.HTTPCounts{Statuses: map[int]int{200: 10, 502: 3}}, rule(t, "2xx", "3"), ""},
		{"past a count", report.HTTPCounts{Statuses: map[int]int{200: 10, 502: 4}}, rule(t, "2xx", "3"),
			"4 of 14 requests failed (4 responses 502), more than --max-failures 3 allows (3)"},
		{"none allowed", report.HTTPCounts{Statuses: map[int]int{200: 1000}, Failed: 1}, rule(t, "2xx", "0%"),
			"1 of 1001 requests failed (1 failed request), more than --max-failures 0% allows (0)"},
		{"cancelled are no one's", report.HTTPCounts{Statuses: map[int]int{200: 10}, Cancelled: 90}, def, ""},
		{"nothing sent", report.HTTPCounts{}, def, "no request was sent"},
		{"all failed, all allowed", report.HTTPCounts{Statuses: map[int]int{503: 5}}, rule(t, "2xx", "100%"), "no request succeeded: 5 of 5 requests failed (5 responses 503)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, TargetFailure(targetRun(c.h), c.f))
		})
	}
	assert.Empty(t, TargetFailure(&report.Latency{}, def), "not a target's")
}

// JudgeTarget keeps the rule and the counts in the result, and a failed
// run says so among its warnings.
func TestJudgeTarget(t *testing.T) {
	r := targetRun(report.HTTPCounts{Statuses: map[int]int{200: 90, 404: 10}})
	JudgeTarget(r, rule(t, DefaultAcceptStatus, DefaultMaxFailures))
	assert.Equal(t, "2xx,3xx", r.Config.AcceptStatus)
	assert.Equal(t, "1%", r.Config.MaxFailures)
	require.NotNil(t, r.HTTP.Failures)
	assert.Equal(t, 10, *r.HTTP.Failures)
	assert.Equal(t, 1, *r.HTTP.FailuresAllowed)
	assert.Equal(t, []report.Warning{{Kind: report.KindFailedRun, Text: "failed run: 10 of 100 requests failed (10 responses 404), more than --max-failures 1% allows (1)"}}, r.Warnings)

	ok := targetRun(report.HTTPCounts{Statuses: map[int]int{200: 100}})
	JudgeTarget(ok, rule(t, DefaultAcceptStatus, DefaultMaxFailures))
	assert.Empty(t, ok.Warnings)
	assert.Equal(t, 0, *ok.HTTP.Failures)

	// An accepted status is no failure, and says nothing.
	accepted := targetRun(report.HTTPCounts{Statuses: map[int]int{200: 90, 404: 10}})
	JudgeTarget(accepted, rule(t, "2xx,404", DefaultMaxFailures))
	assert.Empty(t, accepted.Warnings)
	assert.Equal(t, 0, *accepted.HTTP.Failures)

	// Failures within the rule: the run passes and says what its figures hold.
	within := targetRun(report.HTTPCounts{Statuses: map[int]int{200: 199, 503: 1}})
	JudgeTarget(within, rule(t, DefaultAcceptStatus, DefaultMaxFailures))
	assert.Equal(t, []report.Warning{{Kind: report.KindFailedRequests, Text: "failed requests: 1 of 200 requests failed (1 response 503), within --max-failures 1% (2); the percentiles cover the 200 responses, of any status"}}, within.Warnings)
}
