package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// With --instances the instances' defaults apply and the workers' go;
// without it none of them is in the configuration.
func TestResolveInstancesDefaults(t *testing.T) {
	c, err := ResolveFor(Latency, map[string]string{"instances": "shared", "arrivals": "once", "count": "10"})
	require.NoError(t, err)
	assert.Equal(t, &runspec.Instances{Policy: "shared", Concurrency: 80, KeepAlive: 10 * time.Minute, BillGranularity: time.Millisecond}, c.Instances)
	assert.Equal(t, 10, c.Count)
	assert.Zero(t, c.Rate, "once: no rate")
	assert.Zero(t, c.Duration, "once: no duration")
	assert.Zero(t, c.Workers)
	o := c.OpenLoop(0)
	assert.Len(t, runspec.Schedule(o), 10)
	assert.Equal(t, c.Instances, o.Instances)

	c, err = ResolveFor(Latency, map[string]string{"instances": "per-request", "concurrency": "10", "init": "70ms",
		"init-memory": "80MB", "keep-alive": "0s", "bill-granularity": "100ms"})
	require.NoError(t, err)
	assert.Equal(t, &runspec.Instances{Policy: "per-request", Concurrency: 1, Init: 70 * time.Millisecond, InitMemory: 80_000_000,
		BillGranularity: 100 * time.Millisecond}, c.Instances, "per-request serves one at a time")

	c, err = ResolveFor(Latency, map[string]string{"instances": "pool:4", "concurrency": "2"})
	require.NoError(t, err)
	assert.Equal(t, "pool:4", c.Instances.Policy)
	assert.Equal(t, 2, c.Instances.Concurrency)

	c, err = ResolveFor(Latency, map[string]string{"arrivals": "once"})
	require.NoError(t, err)
	assert.Nil(t, c.Instances)
	assert.Equal(t, 1, c.Count, "once without --count: one request")
	assert.Equal(t, 1, c.Workers, "the open loop keeps its workers")
}

func TestParseInitMemory(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "4096": 4096, "80MB": 80_000_000, "64MiB": 64 << 20, "1GiB": 1 << 30,
		"1.5KiB": 1536, " 2 kB ": 2000, "10B": 10, "1GB": 1_000_000_000} {
		var c Config
		require.NoError(t, parseInitMemory(&c, in), in)
		assert.Equal(t, want, c.InitMemory, in)
	}
	for _, bad := range []string{"", "-1", "2GiB", "1.1GiB", "80mb", "MB", "x", "1e9", "NaN", "80 M", "1.5", "1.0", "1.5B", "+5", "0x10"} {
		var c Config
		err := parseInitMemory(&c, bad)
		checkUsageError(t, err, "init-memory")
	}
}

// Bad input to the instances is a usage error naming the flag; the
// request cap on instances is a combination (a list skips it).
func TestResolveInstancesErrors(t *testing.T) {
	for _, tc := range []struct {
		values      map[string]string
		param, msg  string
		combination bool
	}{
		{map[string]string{"instances": "pool:0"}, "instances", `invalid --instances "pool:0": want pool:N with N a whole number between 1 and 256`, false},
		{map[string]string{"instances": "pool:x"}, "instances", `invalid --instances "pool:x": want pool:N`, false},
		{map[string]string{"instances": "lambda"}, "instances", `invalid --instances "lambda": want per-request, shared or pool:N (N from 1 to 256)`, false},
		{map[string]string{"instances": "shared", "concurrency": "0"}, "concurrency", `invalid --concurrency 0: must be between 1 and 1000`, false},
		{map[string]string{"concurrency": "4"}, "concurrency", `--concurrency "4" applies only with --instances`, false},
		{map[string]string{"init": "70ms"}, "init", `--init "70ms" applies only with --instances`, false},
		{map[string]string{"init-memory": "1MB"}, "init-memory", `--init-memory "1MB" applies only with --instances`, false},
		{map[string]string{"keep-alive": "1s"}, "keep-alive", `--keep-alive "1s" applies only with --instances`, false},
		{map[string]string{"bill-granularity": "1ms"}, "bill-granularity", `--bill-granularity "1ms" applies only with --instances`, false},
		{map[string]string{"instances": "shared", "workers": "4"}, "workers", `--workers "4" does not apply with --instances`, false},
		{map[string]string{"instances": "shared", "queue": "4"}, "queue", `--queue "4" does not apply with --instances`, false},
		{map[string]string{"count": "10"}, "count", `--count "10" applies only to --arrivals once (--arrivals is poisson)`, false},
		{map[string]string{"arrivals": "once", "count": "0"}, "count", `invalid --count 0: must be between 1 and 10000000`, false},
		{map[string]string{"arrivals": "once", "rate": "10"}, "rate", `--rate "10" does not apply to --arrivals once`, false},
		{map[string]string{"arrivals": "once", "duration": "1s"}, "duration", `--duration "1s" does not apply to --arrivals once`, false},
		{map[string]string{"instances": "shared", "init": "11s"}, "init", `invalid --init "11s": want a duration between 0s and 10s`, false},
		{map[string]string{"instances": "shared", "keep-alive": "-1s"}, "keep-alive", `invalid --keep-alive "-1s"`, false},
		{map[string]string{"instances": "shared", "bill-granularity": "0s"}, "bill-granularity", `invalid --bill-granularity "0s": want a duration between 1ns and 1h0m0s`, false},
		{map[string]string{"instances": "shared", "rate": "1000", "duration": "101s"}, "rate", `invalid --rate 1000 with --duration 1m41s with --instances: 101000 requests, at most 100000 on instances`, true},
		{map[string]string{"instances": "shared", "arrivals": "once", "count": "100001"}, "count", `invalid --count 100001 with --instances`, true},
	} {
		_, err := ResolveFor(Latency, tc.values)
		var e *badinput.Error
		require.ErrorAs(t, err, &e, "%v", tc.values)
		assert.Equal(t, tc.param, e.Param, "%v", tc.values)
		assert.Contains(t, e.Msg, tc.msg, "%v", tc.values)
		assert.Equal(t, tc.combination, e.Combination, "%v", tc.values)
		checkUsageError(t, err, tc.param)
	}
	_, err := Resolve(map[string]string{"instances": "shared"})
	assert.ErrorContains(t, err, "unknown parameter --instances", "run and sweep do not take it")
}

// The words --instances takes, checked one by one as a list's are.
func TestInstancesParamCheck(t *testing.T) {
	p, ok := Lookup("instances")
	require.True(t, ok)
	assert.True(t, p.Axis)
	for _, v := range []string{"per-request", "shared", "pool:1", "pool:256"} {
		assert.NoError(t, p.Check(v), v)
	}
	for _, v := range []string{"pool:0", "pool:", "pool:1,2", "Shared"} {
		assert.Error(t, p.Check(v), v)
	}
}
