//go:build linux

package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tbreport "github.com/throttlebench/throttlebench/internal/report"
)

// headlines are the warnings' short names, the text before the first ": ".
// warnings are a result's as the binary writes them, each its kind and
// its text; a result's JSON of before kinds reads too (tbreport.Warning).
type warnings []tbreport.Warning

// text is every warning's text, a line each, for assertions on the words
// people read.
func (ws warnings) text() string { return strings.Join(tbreport.Texts(ws), "\n") }

// kinds are the warnings' kinds, in order.
func (ws warnings) kinds() []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Kind)
	}
	return out
}

// headlines are what tables show of the warnings.
func headlines(ws warnings) []string {
	var out []string
	for _, w := range ws {
		h, _, _ := strings.Cut(w.Text, ": ")
		out = append(out, h)
	}
	return out
}

// A run too short for its quota says so. At --cpus 0.5 an iteration of 5
// hashes (about 5 ms of CPU) is far below the 50 ms quota, three of them
// span a fraction of one 100 ms period, and 3+3 iterations can never show
// a change in compare. --min-time 1s then measures for at least 1 s, ten
// periods: the window is long enough, the iterations still short.
func TestWeakNumbersSaySo(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	args := []string{"run", "--cgroup", "create", "--parent", parent, "--cpus", "0.5", "--batch", "5", "--iterations", "3"}

	r := tbJSON(t, args...)
	t.Logf("warnings: %q", r.Warnings)
	h := headlines(r.Warnings)
	assert.Contains(t, h, "short iterations")
	assert.Contains(t, h, "few periods")
	assert.Contains(t, h, "few iterations")
	assert.Zero(t, r.Config.MinTimeMs)

	r = tbJSON(t, append(args, "--min-time", "1s")...)
	var window float64
	for _, d := range r.DurationsMs {
		window += d
	}
	periods := "unknown"
	if r.Throttling.NrPeriods != nil {
		periods = fmt.Sprint(*r.Throttling.NrPeriods)
	}
	t.Logf("--min-time 1s: %d iterations over %.0f ms, %s periods; warnings: %q", r.Stats.N, window, periods, r.Warnings)
	assert.GreaterOrEqual(t, window, 1000.0)
	assert.Equal(t, 3, r.Config.Iterations, "config says what was asked")
	assert.Equal(t, 1000.0, r.Config.MinTimeMs)
	assert.Greater(t, r.Stats.N, 3, "stats say what ran")
	require.Len(t, r.DurationsMs, r.Stats.N)
	h = headlines(r.Warnings)
	assert.Contains(t, h, "short iterations")
	assert.NotContains(t, h, "few periods", "1 s is ten 100 ms periods")
	assert.NotContains(t, h, "few iterations")
}

// The text summary shows the warnings; an invalid --min-time creates
// nothing (testParent checks) and exits 2.
func TestWarningsInTextAndBadMinTime(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	o := tb(t, "run", "--cgroup", "create", "--parent", parent, "--cpus", "0.5", "--batch", "5", "--iterations", "3", "--format", "text")
	require.Equal(t, 0, o.code, o.stderr)
	assert.Contains(t, o.stdout, "\n  warning: short iterations: ")

	o = tb(t, "run", "--cgroup", "create", "--parent", parent, "--min-time", "-1s")
	assert.Equal(t, 2, o.code, o.stderr)
	assert.Contains(t, o.stderr, "--min-time")
}
