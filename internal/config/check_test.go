package config

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/table"
)

// The checks of the flags that are not parameters: each refusal is an
// *badinput.Error of one line naming the flag and the value.
func TestChecksOfOtherFlags(t *testing.T) {
	require.NoError(t, badinput.Choice("format", "csv", []string{"json", "csv"}))
	err := badinput.Choice("format", "yaml", []string{"json", "csv"})
	checkUsageError(t, err, "format")
	assert.EqualError(t, err, `invalid --format "yaml": want one of json, csv`)

	require.NoError(t, Timeout(0))
	require.NoError(t, Timeout(MaxTimeout))
	for _, d := range []time.Duration{-time.Second, MaxTimeout + 1} {
		err := Timeout(d)
		checkUsageError(t, err, "timeout")
		assert.ErrorContains(t, err, "between 0 (no limit) and 720h0m0s")
	}

	for v, want := range map[string]int{"auto": 0, "1": 1, "2": 2} {
		n, err := CgroupVersion(v)
		require.NoError(t, err)
		assert.Equal(t, want, n)
	}
	_, err = CgroupVersion("3")
	checkUsageError(t, err, "cgroup-version")
	assert.ErrorContains(t, err, "want one of auto, 1, 2")
}

// --cgroup current measures the limits in place: a limit, the cpuset or a
// parent cannot apply; the workload's parameters can.
func TestInCurrent(t *testing.T) {
	require.NoError(t, InCurrent(map[string]string{"workers": "2", "batch": "5"}, false, ""))
	for _, name := range []string{"cpus", "quota", "period", "burst", "cpuset"} {
		err := InCurrent(map[string]string{"workers": "2", name: "x"}, false, "")
		checkUsageError(t, err, name)
		assert.EqualError(t, err, "--"+name+` "x" cannot be used with --cgroup current: it measures the limits already in place`)
	}
	err := InCurrent(nil, true, "/x")
	checkUsageError(t, err, "parent")
	assert.EqualError(t, err, `--parent "/x" cannot be used with --cgroup current: it measures the limits already in place`)
}

func TestPathCause(t *testing.T) {
	_, err := os.Open("/nonexistent/x")
	assert.EqualError(t, badinput.PathCause(err), "no such file or directory")
	other := assert.AnError
	assert.Equal(t, other, badinput.PathCause(other))
}

// --columns: nothing fits the width, all shows every column, a list those
// (once each, in its order); a name the table lacks, an empty name or a
// format that is no table is bad input naming the flag and what is allowed.
func TestColumns(t *testing.T) {
	allowed := []string{"burst", "p50_ms", "p99_ms", "note"}
	c, err := Columns("", "json", allowed)
	require.NoError(t, err, "not given: nothing to refuse, whatever the format")
	assert.Equal(t, table.Columns{}, c)
	c, err = Columns("all", "text", allowed)
	require.NoError(t, err)
	assert.Equal(t, table.Columns{All: true}, c)
	c, err = Columns(" p99_ms, p50_ms,p99_ms", "csv", allowed)
	require.NoError(t, err)
	assert.Equal(t, table.Columns{Names: []string{"p99_ms", "p50_ms"}}, c)

	for v, want := range map[string]string{
		"p95_ms":     `invalid --columns "p95_ms": "p95_ms" is no column here; want all, or a list of burst, p50_ms, p99_ms, note`,
		"p50_ms,":    `invalid --columns "p50_ms,": "" is no column here`,
		"all,p50_ms": `"all" is no column here`,
	} {
		_, err := Columns(v, "text", allowed)
		var e *badinput.Error
		require.ErrorAs(t, err, &e, v)
		assert.Equal(t, "columns", e.Param)
		assert.Contains(t, err.Error(), want)
	}
	_, err = Columns("all", "json", allowed)
	assert.EqualError(t, err, `--columns "all" applies to the tables (--format text, csv, markdown), not --format json`)
}
