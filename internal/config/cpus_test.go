package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CPUs read as Kubernetes writes a CPU quantity, and as the numbers they
// always were.
func TestParseCPUs(t *testing.T) {
	for in, want := range map[string]float64{
		"2": 2, "1.5": 1.5, "0.5": 0.5, ".5": 0.5, "500m": 0.5, "850m": 0.85, "1500m": 1.5,
		"0.15": 0.15, "150m": 0.15, " 250m ": 0.25, "1e-1": 0.1, "1k": 1000, "1Ki": 1024, "0.5m": 0.0005,
	} {
		got, ok := ParseCPUs(in)
		require.True(t, ok, in)
		assert.Equal(t, want, got, in) // exact: 150m is the float64 nearest 0.15, as 0.15 is
	}
	for _, in := range []string{"", "m", "half", "500 m", "500M m", "0x1p-1", "inf", "NaN", "1,5", "5%", "500mi"} {
		_, ok := ParseCPUs(in)
		assert.False(t, ok, in)
	}
}

// --cpus takes 500m in run's one value (parseCPUs), refused as before
// where its quota is below the kernel's.
func TestCPUsParamTakesQuantities(t *testing.T) {
	c, err := Resolve(map[string]string{"cpus": "500m"})
	require.NoError(t, err)
	assert.Equal(t, 50*time.Millisecond, c.Limits.Quota)
	c, err = ResolveFor(Latency, map[string]string{"cpus": "1500m", "period": "10ms"})
	require.NoError(t, err)
	assert.Equal(t, 15*time.Millisecond, c.Limits.Quota)

	_, err = Resolve(map[string]string{"cpus": "5m"})
	checkUsageError(t, err, "cpus")
	assert.ErrorContains(t, err, `invalid --cpus "5m": gives a quota of 500µs per 100ms period, below the kernel's 1ms minimum`)
	_, err = Resolve(map[string]string{"cpus": "fast"})
	checkUsageError(t, err, "cpus")
	assert.EqualError(t, err, `invalid --cpus "fast": want a number of CPUs above 0 and at most 1024, such as 0.5 or 500m, or max`)
}

// A list of CPUs (sweep, latency) reads its quantities as the sweep's
// numbers; what is no quantity is left for the list's own checks.
func TestCPUsList(t *testing.T) {
	for in, want := range map[string]string{
		"0.5,1":              "0.5,1",
		"500m,1":             "0.5,1",
		"250m:1:250m":        "0.25:1:0.25",
		"500m:2:*2":          "0.5:2:*2",
		"max,500m":           "max,0.5",
		" 500m , 1500m ":     "0.5,1.5",
		"500m,x":             "0.5,x",
		"1e-1:0x1p-1:100m":   "1e-1:0x1p-1:0.1",
		"0.1:1:0.1,max,850m": "0.1:1:0.1,max,0.85",
	} {
		assert.Equal(t, want, CPUsList(in), in)
	}
}
