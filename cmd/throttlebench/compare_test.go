package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/golden"
)

// The fixtures under testdata/compare are real results of this host (2
// vCPUs), batch 20, 10 iterations: base.jsonl holds --cpus 0.5 --period
// 10ms and an unlimited run; regression.jsonl the same with a --cpus 0.25
// run relabelled as 0.5 (quota_us 5000), improvement.jsonl with a --cpus 1
// run relabelled, same.jsonl repeated runs of base's configurations,
// sweep.json those as an array, pooled.jsonl two runs of each,
// unmatched.jsonl a --cpus 0.25 run not relabelled, few-*.json 3 iterations
// each (0.5 against 0.25 relabelled); negative-durations.json,
// empty-durations.json, no-durations.json and null-duration.json are base's
// first run with its durations_ms edited so ([-5,-1,0], [], gone, a null);
// memtouch-old.jsonl memtouch fresh and reuse written before --touch
// existed (one store per page, reuse repainting one buffer), batch 20,
// memtouch-new.jsonl the four of --memory fresh|reuse × --touch page|all
// since.
func fixture(name string) string { return filepath.Join("testdata", "compare", name) }

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("compare", name), got)
}

func TestCompareExitCodes(t *testing.T) {
	for _, c := range []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string
		noStderr bool
	}{
		{"a regression exits 3", []string{fixture("base.jsonl"), fixture("regression.jsonl")}, exitRegression,
			[]string{"+90.5% (p<0.001 n=10+10)", "~ (p=0.353 n=10+10)", "verdict: 1 regression"},
			[]string{"significant regression in 1 of 2 configurations", "quota=5ms burst=0: wall +90.5% (p<0.001)"}, false},
		{"an improvement exits 0", []string{fixture("base.jsonl"), fixture("improvement.jsonl")}, exitOK,
			[]string{"-39.7% (p=0.009 n=10+10)", "1 improvement"}, nil, true},
		{"an improvement with --fail-on change exits 3", []string{"--fail-on", "change", fixture("base.jsonl"), fixture("improvement.jsonl")}, exitRegression,
			[]string{"-39.7%"}, []string{"significant change in 1 of 2 configurations"}, false},
		{"a regression with --fail-on never exits 0", []string{"--fail-on", "never", fixture("base.jsonl"), fixture("regression.jsonl")}, exitOK,
			[]string{"+90.5%"}, nil, true},
		{"a stricter threshold lets the regression pass", []string{"--threshold", "100%", fixture("base.jsonl"), fixture("regression.jsonl")}, exitOK,
			[]string{"~ (p<0.001 n=10+10)", "|change| ≥ 100%"}, nil, true},
		{"a stricter alpha still flags it", []string{"--alpha", "0.001", fixture("base.jsonl"), fixture("regression.jsonl")}, exitRegression,
			[]string{"+90.5%", "p < 0.001"}, nil, false},
		{"repeated runs show no change", []string{fixture("base.jsonl"), fixture("same.jsonl")}, exitOK,
			[]string{"~ (p=0.796 n=10+10)", "~ (p=0.853 n=10+10)", "0 regressions, 0 improvements, 2 without significant change"}, nil, true},
		{"a file against itself", []string{fixture("base.jsonl"), fixture("base.jsonl")}, exitOK,
			[]string{"~ (p=1.000 n=10+10)"}, nil, true},
		{"a sweep array loads", []string{fixture("sweep.json"), fixture("base.jsonl")}, exitOK,
			[]string{"old: testdata/compare/sweep.json, 2 results", "~ (p=0.796 n=10+10)"}, nil, true},
		{"pooled runs say so", []string{fixture("base.jsonl"), fixture("pooled.jsonl")}, exitOK,
			[]string{"n=10+20", "¹ 2 results pooled: 20 iterations"}, nil, true},
		// 3+3 can never reach p < 0.05: exit 0, but said in the output, and
		// on stderr where the output is not text on the terminal.
		{"too few iterations warn", []string{fixture("few-old.json"), fixture("few-new.json")}, exitOK,
			[]string{"~ (p=0.100 n=3+3)²", "² warning: n=3+3 cannot reach p<0.05; need at least 4 iterations on each side"}, nil, true},
		{"too few iterations warn on stderr beside JSON", []string{"--format", "json", fixture("few-old.json"), fixture("few-new.json")}, exitOK,
			[]string{"n=3+3 cannot reach p"},
			[]string{"throttlebench: warning: workload=bcrypt cost=4 batch=20 workers=1 gomaxprocs=1 period=10ms quota=5ms burst=0: n=3+3 cannot reach p<0.05; need at least 4 iterations on each side"}, false},
		{"unmatched configurations are listed", []string{fixture("base.jsonl"), fixture("unmatched.jsonl")}, exitOK,
			[]string{"only in old: period=10ms quota=5ms\n", "only in new: period=10ms quota=2.5ms\n",
				"warning: 1 configuration(s) only in old and 1 only in new were not compared", "--match -quota would pair 1 configuration"}, nil, true},
		{"--match chooses the keys", []string{"--match", "workload,period", fixture("base.jsonl"), fixture("unmatched.jsonl")}, exitRegression,
			[]string{"period=10ms", "+90.5%"}, []string{"significant regression"}, false},
		{"nothing compared exits 1", []string{fixture("few-old.json"), fixture("unmatched.jsonl")}, exitFailure,
			[]string{"only in old: period=10ms quota=5ms\n", "only in new: period=10ms quota=2.5ms, period=100ms quota=max\n", "verdict: nothing compared\n"},
			[]string{"nothing compared: no configuration in testdata/compare/few-old.json is also in testdata/compare/unmatched.jsonl",
				"; --match -quota would pair 1 configuration\n"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"compare"}, c.args...)...)
			assert.Equal(t, c.code, code, "stderr: %s", stderr)
			for _, w := range c.stdout {
				assert.Contains(t, stdout, w)
			}
			for _, w := range c.stderr {
				assert.Contains(t, stderr, w)
			}
			if c.noStderr {
				assert.Empty(t, stderr)
			}
		})
	}
}

// Nothing compared is said once, not three times (the output's warning,
// stderr's warning and the error), with the --match that pairs them; the
// configurations only on one side are listed once (issue 33).
func TestCompareNothingComparedSaidOnce(t *testing.T) {
	code, stdout, stderr := runCLI("compare", fixture("few-old.json"), fixture("unmatched.jsonl"))
	assert.Equal(t, exitFailure, code)
	all := stdout + stderr
	assert.Equal(t, 1, strings.Count(all, "no configuration"), "%s", all)
	assert.Equal(t, 1, strings.Count(all, "--match -quota"), "%s", all)
	assert.Equal(t, 1, strings.Count(all, "only in old: period=10ms quota=5ms"), "%s", all)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line on stderr: %s", stderr)

	// The suggestion pairs them.
	code, stdout, stderr = runCLI("compare", "--match", "-quota", fixture("few-old.json"), fixture("unmatched.jsonl"))
	assert.NotEqual(t, exitFailure, code, stderr)
	assert.Contains(t, stdout, "verdict: 1 regression")
}

func TestCompareGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"regression.txt", []string{fixture("base.jsonl"), fixture("regression.jsonl")}},
		{"regression.md", []string{"--format", "markdown", fixture("base.jsonl"), fixture("regression.jsonl")}},
		{"regression.golden.json", []string{"--format", "json", fixture("base.jsonl"), fixture("regression.jsonl")}},
		{"few.txt", []string{fixture("few-old.json"), fixture("few-new.json")}},
		{"few.md", []string{"--format", "markdown", fixture("few-old.json"), fixture("few-new.json")}},
		{"unmatched.md", []string{"--format", "markdown", fixture("base.jsonl"), fixture("unmatched.jsonl")}},
		{"memtouch.md", []string{"--format", "markdown", fixture("memtouch-old.jsonl"), fixture("memtouch-new.jsonl")}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			_, stdout, _ := runCLI(append([]string{"compare"}, c.args...)...)
			checkGolden(t, c.golden, stdout)
		})
	}
}

func TestCompareJSONForMachines(t *testing.T) {
	code, stdout, _ := runCLI("compare", "--format", "json", fixture("base.jsonl"), fixture("regression.jsonl"))
	assert.Equal(t, exitRegression, code)
	var got struct {
		Alpha        float64        `json:"alpha"`
		ThresholdPct float64        `json:"threshold_pct"`
		Verdicts     map[string]int `json:"verdicts"`
		Rows         []struct {
			Config    map[string]any `json:"config"`
			ChangePct float64        `json:"change_pct"`
			P         float64        `json:"p"`
			Verdict   string         `json:"verdict"`
			Old, New  struct {
				N        int     `json:"n"`
				MedianMs float64 `json:"median_ms"`
			}
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	assert.Equal(t, 0.05, got.Alpha)
	assert.Equal(t, 5.0, got.ThresholdPct)
	assert.Equal(t, 1, got.Verdicts["regression"])
	require.Len(t, got.Rows, 2)
	r := got.Rows[0]
	assert.Equal(t, "regression", r.Verdict)
	assert.Equal(t, 5000.0, r.Config["quota_us"])
	assert.InDelta(t, 2.0/184756, r.P, 1e-12, "fully separated 10+10")
	assert.Equal(t, 10, r.Old.N)
	assert.InDelta(t, 100*(r.New.MedianMs/r.Old.MedianMs-1), r.ChangePct, 1e-6)
}
