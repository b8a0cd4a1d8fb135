package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/report"
)

func TestResolveDefaults(t *testing.T) {
	c, err := Resolve(nil)
	require.NoError(t, err)
	assert.Equal(t, Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 50, Iterations: 5, Warmup: 1, Workers: 1, GOMAXPROCS: "workers",
		Limits: bandwidth.Limits{Period: DefaultPeriod, Quota: bandwidth.Unlimited}}, c)
	assert.Equal(t, 1, c.GOMAXPROCSValue())
}

func TestResolveLimits(t *testing.T) {
	for _, tc := range []struct {
		values map[string]string
		want   bandwidth.Limits
	}{
		{map[string]string{"cpus": "0.5"}, bandwidth.Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond}},
		// The period is resolved first, whatever the map's order.
		{map[string]string{"cpus": "0.5", "period": "10ms"}, bandwidth.Limits{Period: 10 * time.Millisecond, Quota: 5 * time.Millisecond}},
		{map[string]string{"quota": "20ms", "burst": "20ms"}, bandwidth.Limits{Period: 100 * time.Millisecond, Quota: 20 * time.Millisecond, Burst: 20 * time.Millisecond}},
		{map[string]string{"quota": "max", "burst": "0"}, bandwidth.Limits{Period: 100 * time.Millisecond, Quota: bandwidth.Unlimited}},
		// --cpus max is --quota max: an unlimited arm in a list (issue 33).
		{map[string]string{"cpus": "max"}, bandwidth.Limits{Period: 100 * time.Millisecond, Quota: bandwidth.Unlimited}},
	} {
		c, err := Resolve(tc.values)
		require.NoError(t, err, tc.values)
		assert.Equal(t, tc.want, c.Limits, tc.values)
		assert.True(t, c.LimitsSet, "a limit was given: %v", tc.values)
	}
}

// A value bad on its own stops everything; values that are fine alone but
// not together are a Combination, which a sweep skips.
func TestResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		values      map[string]string
		param, msg  string
		combination bool
	}{
		{map[string]string{"workers": "0"}, "workers", "invalid --workers 0: must be between 1 and 1024", false},
		{map[string]string{"workers": "1e3"}, "workers", `invalid --workers "1e3": want a whole number between 1 and 1024`, false},
		{map[string]string{"cost": "32"}, "cost", "invalid --cost 32: must be between 4 and 31", false},
		{map[string]string{"period": "2s"}, "period", `invalid --period "2s": must be between 1ms and 1s`, false},
		{map[string]string{"cpus": "0.5", "quota": "5ms"}, "cpus", `--cpus "0.5" conflicts with --quota "5ms"`, false},
		{map[string]string{"cpus": "0.005"}, "cpus", "below the kernel's 1ms minimum", true},
		{map[string]string{"quota": "10ms", "burst": "20ms"}, "burst", "must not exceed the quota 10ms", true},
		{map[string]string{"burst": "5ms"}, "burst", "a burst needs a quota", true},
		{map[string]string{"gomaxprocs": "2000"}, "gomaxprocs", "between 1 and 1024, workers, runtime, floor or ceil", false},
		{map[string]string{"workload": "sha"}, "workload", `invalid --workload "sha": want one of bcrypt`, false},
		{map[string]string{"min-time": "2h"}, "min-time", "between 0 (off) and 1h", false},
		{map[string]string{"cpuset": "0-"}, "cpuset", `invalid --cpuset "0-": want CPU numbers 0–8191 in the kernel's list format, such as 0-3,8`, false},
		{map[string]string{"cpuset": "3-1"}, "cpuset", `invalid --cpuset "3-1"`, false},
		{map[string]string{"cpuset": ""}, "cpuset", `invalid --cpuset ""`, false},
		{map[string]string{"cpuset": "9000"}, "cpuset", `invalid --cpuset "9000"`, false},
		{map[string]string{"pin": "yes"}, "pin", `invalid --pin "yes": want true or false`, false},
		{map[string]string{"one-per-core": "2"}, "one-per-core", `invalid --one-per-core "2": want true or false`, false},
	} {
		_, err := Resolve(tc.values)
		var e *badinput.Error
		require.ErrorAs(t, err, &e, tc.values)
		assert.Equal(t, tc.param, e.Param, tc.values)
		assert.Contains(t, e.Msg, tc.msg)
		assert.Equal(t, tc.combination, badinput.IsCombination(err), tc.values)
	}
}

// Check judges one value of a sweep axis alone.
func TestCheck(t *testing.T) {
	cpus, _ := Lookup("cpus")
	assert.NoError(t, cpus.Check("0.005"), "fine at a 1s period; only a combination with a short period is not")
	assert.Error(t, cpus.Check("0"))
	burst, _ := Lookup("burst")
	assert.NoError(t, burst.Check("500ms"), "the burst alone; its quota is checked with it")
	assert.Error(t, burst.Check("-1ms"))
	_, ok := Lookup("no-such")
	assert.False(t, ok)
}

// Every parameter is declared once, with what its flag and axis need.
func TestParams(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Params {
		assert.False(t, seen[p.Name], "declared twice: %s", p.Name)
		seen[p.Name] = true
		assert.NotEmpty(t, p.Help, p.Name)
		assert.NotNil(t, p.parse, p.Name)
		if p.Default != "" {
			assert.NoError(t, p.Check(p.Default), "%s's default", p.Name)
		}
	}
}

// A configuration holds the parameters of the workload that runs, and the
// waits' only with sleeps; --slow-workers all is every worker.
func TestResolveWorkloadsAndWaits(t *testing.T) {
	c, err := Resolve(map[string]string{"workload": "spin", "units": "50", "buffer": "8192"})
	require.NoError(t, err)
	assert.Equal(t, report.Params{}.With("units", 50), c.Params, "spin's own alone")

	c, err = Resolve(map[string]string{"workload": "memtouch"})
	require.NoError(t, err)
	assert.Equal(t, report.Params{}.With("buffer_bytes", 1<<20).With("memory", "fresh").With("touch", "all"), c.Params)
	assert.Equal(t, c.Params, c.ClosedLoop().Params)

	c, err = Resolve(map[string]string{"workload": "memtouch", "memory": "reuse", "touch": "page"})
	require.NoError(t, err)
	assert.Equal(t, [2]string{"reuse", "page"}, [2]string{c.Params.String("memory"), c.Params.String("touch")})
	_, err = Resolve(map[string]string{"workload": "memtouch", "touch": "half"})
	checkUsageError(t, err, "touch")
	assert.ErrorContains(t, err, "all, page")

	// Reuse keeps a buffer per operation of the batch, 1 GiB at most.
	_, err = Resolve(map[string]string{"workload": "memtouch", "memory": "reuse", "batch": "1024"})
	require.NoError(t, err)
	_, err = Resolve(map[string]string{"workload": "memtouch", "memory": "reuse", "batch": "1025"})
	checkUsageError(t, err, "batch")
	assert.True(t, badinput.IsCombination(err), "a sweep over batch or buffer skips it")
	assert.ErrorContains(t, err, "1025 MiB per worker")
	_, err = Resolve(map[string]string{"workload": "memtouch", "memory": "fresh", "batch": "100000"})
	assert.NoError(t, err, "fresh keeps none")
	_, err = Resolve(map[string]string{"workload": "spin", "memory": "reuse", "batch": "100000"})
	assert.NoError(t, err, "another workload keeps none")

	c, err = Resolve(map[string]string{"workers": "4", "sleep": "10ms", "sleep-every": "100"})
	require.NoError(t, err)
	assert.Equal(t, [3]any{10 * time.Millisecond, 100, 4}, [3]any{c.Sleep, c.SleepEvery, c.SlowWorkers})

	c, err = Resolve(map[string]string{"workers": "4", "slow-workers": "1", "sleep-every": "7"})
	require.NoError(t, err)
	assert.Equal(t, [2]int{0, 0}, [2]int{c.SleepEvery, c.SlowWorkers}, "no sleeps: no waits")

	_, err = Resolve(map[string]string{"workers": "2", "slow-workers": "3", "sleep": "1ms"})
	assert.True(t, badinput.IsCombination(err), "a sweep over workers skips what has fewer than the slow workers")
}

// The placement: a cpuset in the kernel's list format, kept as CPU ids (the
// command checks them against this machine); it makes the run ask for a
// slice of its own, as a limit does. pin and one-per-core are flags.
func TestResolvePlacement(t *testing.T) {
	c, err := Resolve(map[string]string{"cpuset": "3,0-1,1", "pin": "true", "one-per-core": "true"})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 3}, c.Cpuset)
	assert.True(t, c.Pin)
	assert.True(t, c.OnePerCore)
	assert.True(t, c.LimitsSet, "a cpuset is for a created slice")

	c, err = Resolve(nil)
	require.NoError(t, err)
	assert.Nil(t, c.Cpuset)
	assert.False(t, c.Pin || c.OnePerCore || c.LimitsSet)

	c, err = ResolveFor(Latency, map[string]string{"cpuset": "1"})
	require.NoError(t, err)
	assert.Equal(t, []int{1}, c.Cpuset)
	_, err = ResolveFor(Latency, map[string]string{"pin": "true"})
	assert.ErrorContains(t, err, "unknown parameter --pin", "the open loop's workers are not pinned")
}

// memtouch's touch is an axis of words, and no key of its own: the workload's
// key carries it (internal/compare's TestWorkloadKeyMemtouchTouch).
func TestTouchParam(t *testing.T) {
	p, ok := Lookup("touch")
	require.True(t, ok)
	assert.Equal(t, [3]any{Words, "all", []string{"all", "page"}}, [3]any{p.Kind, p.Default, p.Words})
	assert.True(t, p.Axis, "a sweep may list both")
	assert.Empty(t, p.Key, "the workload's key carries it")
}
