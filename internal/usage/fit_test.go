package usage

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spike is issue 33's case: at 0.5 CPUs (50 ms of quota per 100 ms) a
// 154 ms interval needs 104 ms of burst, twice the kernel's cap.
var spike = trace(50, 50, 50, 154, 50)

func TestBurstCap(t *testing.T) {
	assert.Equal(t, 50*time.Millisecond, BurstCap(0.5, 100*time.Millisecond), "the quota per period")
	assert.Equal(t, 262500*time.Microsecond, BurstCap(1.05, 250*time.Millisecond))
	assert.Equal(t, 30*time.Millisecond, BurstCap(0.3, 100*time.Millisecond), "0.3 × 1e8 is not exact in floating point")
}

func TestFitPeriod(t *testing.T) {
	for _, tc := range []struct {
		burst time.Duration
		cpus  float64
		want  time.Duration
		ok    bool
	}{
		{104 * time.Millisecond, 0.5, 208 * time.Millisecond, true},
		{147600 * time.Microsecond, 1, 148 * time.Millisecond, true}, // the README's, rounded up to the ms
		{100 * time.Millisecond, 1, 100 * time.Millisecond, true},    // exactly the quota fits
		{500 * time.Millisecond, 0.5, time.Second, true},             // the kernel's longest period
		{501 * time.Millisecond, 0.5, 0, false},
		{time.Microsecond, 4, time.Millisecond, true}, // never below the shortest
		{time.Millisecond, 0, 0, false},
	} {
		got, ok := FitPeriod(tc.burst, tc.cpus)
		assert.Equal(t, tc.ok, ok, "%v at %v CPUs", tc.burst, tc.cpus)
		assert.Equal(t, tc.want, got, "%v at %v CPUs", tc.burst, tc.cpus)
		if ok {
			assert.LessOrEqual(t, tc.burst, BurstCap(tc.cpus, got), "the burst fits at the period found")
		}
	}
}

func TestFitLimit(t *testing.T) {
	// The spike needs 154 − 100·L ms above L; that fits under 100·L ms from
	// L = 0.77, where the burst is 77 ms.
	cpus, burst, ok := FitLimit(spike, 0.5, 100*time.Millisecond)
	require.True(t, ok)
	assert.Equal(t, 0.77, cpus)
	assert.Equal(t, 77*time.Millisecond, burst)

	// The smallest, to the millicore, at any period and starting limit.
	for _, period := range []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, time.Second} {
		for _, from := range []float64{0.5, 1, 2} {
			cpus, burst, ok := FitLimit(spiky, from, period)
			require.True(t, ok)
			assert.GreaterOrEqual(t, cpus, from)
			assert.LessOrEqual(t, burst, BurstCap(cpus, period), "period %v from %v: %v fits", period, from, cpus)
			if below := cpus - 0.001; below >= from {
				assert.Greater(t, Burst(spiky, below), BurstCap(below, period), "period %v from %v: %v does not", period, from, below)
			}
		}
	}

	// A peak of 3000 CPUs in one interval: no limit up to 1024 holds it.
	_, _, ok = FitLimit(trace(50, 300000), 0.5, 100*time.Millisecond)
	assert.False(t, ok)
}

func TestAdviceUnderTheCap(t *testing.T) {
	f := Build(Recording{Trace: spike}, Meta{Limit: 0.5, Target: 0.01, Period: 100 * time.Millisecond})
	a := f.Advice
	assert.Equal(t, 104.0, a.BurstMs)
	assert.Equal(t, 100.0, a.PeriodMs)
	assert.Equal(t, 50.0, a.BurstCapMs)
	assert.False(t, a.BurstFits, "104 ms of burst above 50 ms of quota cannot be set")
	require.NotNil(t, a.FitPeriodMs)
	assert.Equal(t, 208.0, *a.FitPeriodMs)
	require.NotNil(t, a.FitLimitCPUs)
	assert.Equal(t, 0.77, *a.FitLimitCPUs)
	assert.Equal(t, 77.0, *a.FitBurstMs)

	var text bytes.Buffer
	require.NoError(t, Write(&text, f, "text"))
	for _, want := range []string{
		"above 0.500 CPUs: 104.0ms of CPU time\n",
		"above the kernel's cap of 50.00ms (the quota per 100ms period): needs --period 208ms, or a limit of 0.770 CPUs\n",
		"at --period 208ms: docker run --cpu-period 208000 --cpu-quota 104000, burst 104.0ms",
		"at 0.770 CPUs: resources.limits.cpu: 770m · docker run --cpu-period 100000 --cpu-quota 77000, burst 77.00ms",
		"docker run has no burst flag",
	} {
		assert.Contains(t, text.String(), want)
	}

	// The JSON names the ways out, and says null where there is none.
	var raw struct{ Advice map[string]any }
	data, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &raw))
	assert.Equal(t, 208.0, raw.Advice["fit_period_ms"])
	assert.Equal(t, 0.77, raw.Advice["fit_limit_cpus"])
	assert.Equal(t, false, raw.Advice["burst_fits"])

	// Under the cap: no way out needed, and the quota to set it with.
	f = Build(Recording{Trace: spike}, Meta{Limit: 1.2, Target: 0.01, Period: 100 * time.Millisecond})
	assert.True(t, f.Advice.BurstFits)
	assert.Equal(t, 34.0, f.Advice.BurstMs)
	assert.Nil(t, f.Advice.FitPeriodMs)
	assert.Nil(t, f.Advice.FitLimitCPUs)
	text.Reset()
	require.NoError(t, Write(&text, f, "text"))
	assert.Contains(t, text.String(), "34.00ms of CPU time, within the kernel's cap of 120.0ms (the quota per 100ms period)\n"+
		"  docker run --cpu-period 100000 --cpu-quota 120000, burst 34.00ms")
	assert.NotContains(t, text.String(), "needs")

	// The period defaults to the kernel's.
	assert.Equal(t, 100.0, Build(Recording{Trace: spike}, Meta{Limit: 0.5}).Advice.PeriodMs)
}

// Where one way out or neither exists, the text says which.
func TestAdviceNeeds(t *testing.T) {
	// 0.1 CPUs: 124 ms of burst needs a 1.24 s period, past the kernel's.
	a := Build(Recording{Trace: trace(10, 10, 134)}, Meta{Limit: 0.1, Target: 0.01}).Advice
	assert.Nil(t, a.FitPeriodMs)
	require.NotNil(t, a.FitLimitCPUs)
	assert.Equal(t, "needs a limit of 0.670 CPUs (no period up to 1s has room)", needs(a))

	a = Build(Recording{Trace: trace(50, 300000)}, Meta{Limit: 0.5, Target: 0.01}).Advice
	assert.Nil(t, a.FitPeriodMs)
	assert.Nil(t, a.FitLimitCPUs)
	assert.Equal(t, "neither a period up to 1s nor a limit up to 1024 CPUs makes room for it", needs(a))

	f := 300.0
	assert.Equal(t, "needs --period 300ms (no limit up to 1024 CPUs has room)", needs(Advice{FitPeriodMs: &f}))
}

// The advised limit as a pod and a container set it, rounded up to the
// millicore.
func TestSpellings(t *testing.T) {
	for _, tc := range []struct {
		cpus         float64
		kube, docker string
	}{
		{1.05, "resources.limits.cpu: 1050m", "docker run --cpus 1.05"},
		{2, "resources.limits.cpu: 2", "docker run --cpus 2"},
		{1.0431, "resources.limits.cpu: 1044m", "docker run --cpus 1.044"},
		{0.0001, "resources.limits.cpu: 1m", "docker run --cpus 0.001"},
	} {
		assert.Equal(t, tc.kube, KubernetesCPU(tc.cpus))
		assert.Equal(t, tc.docker, DockerCPUs(tc.cpus))
	}
	assert.Equal(t, "docker run --cpu-period 250000 --cpu-quota 262500", DockerQuota(1.05, 250*time.Millisecond))
	assert.Equal(t, "docker run --cpu-period 100000 --cpu-quota 104400", DockerQuota(1.0431, 100*time.Millisecond))
	assert.Equal(t, "docker run --cpu-period 1000 --cpu-quota 2", DockerQuota(0.0011, time.Millisecond), "rounded up")

	var text bytes.Buffer
	f := Build(Recording{Trace: trace(50, 50, 105)}, Meta{Target: 0.01})
	require.NoError(t, Write(&text, f, "text"))
	assert.Contains(t, text.String(), "above it: 1.050 CPUs\n  resources.limits.cpu: 1050m · docker run --cpus 1.05\n")
}
