package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A plain number where a duration is wanted: the one line names the flag
// and the value, and guesses the unit ("4ms?").
func TestNeedsUnit(t *testing.T) {
	for in, want := range map[string]string{
		"4":    `invalid --work "4": a duration needs a unit: 4ms?`,
		"1.5":  `invalid --work "1.5": a duration needs a unit: 1.5ms?`,
		" 20 ": `invalid --work " 20 ": a duration needs a unit: 20ms?`,
		".5":   `invalid --work ".5": a duration needs a unit: .5ms?`,
	} {
		err := NeedsUnit("work", in)
		checkUsageError(t, err, "work")
		assert.EqualError(t, err, want)
	}
	// A duration, 0 (which Go takes), and what is no slip of a unit.
	for _, in := range []string{"4ms", "0", "0.0", "", "-4", "1e3", "inf", "4.5.6", ".", "max", "4 ms"} {
		assert.NoError(t, NeedsUnit("work", in), in)
	}
}

// Every parameter that takes a duration hints, in one value or a list,
// and the hint reaches run's, sweep's and latency's resolve.
func TestCheckUnits(t *testing.T) {
	require.NoError(t, CheckUnits(map[string]string{"cpus": "2", "workers": "4", "burst": "0,20ms", "work": "1ms:4ms:1ms", "quota": "max"}))
	for _, tc := range []struct {
		given map[string]string
		flag  string
		want  string
	}{
		{map[string]string{"period": "100"}, "period", `invalid --period "100": a duration needs a unit: 100ms?`},
		{map[string]string{"work": "1ms,4"}, "work", `invalid --work "1ms,4": 4 needs a unit: 4ms?`},
		{map[string]string{"burst": "0:20:10ms"}, "burst", `invalid --burst "0:20:10ms": 20 needs a unit: 20ms?`},
		{map[string]string{"burst": "0:20ms:+5"}, "burst", `invalid --burst "0:20ms:+5": 5 needs a unit: 5ms?`},
		{map[string]string{"sleep": "10", "workers": "2"}, "sleep", `invalid --sleep "10": a duration needs a unit: 10ms?`},
		{map[string]string{"keep-alive": "600"}, "keep-alive", `invalid --keep-alive "600": a duration needs a unit: 600s?`},
		{map[string]string{"duration": "10,30"}, "duration", `invalid --duration "10,30": 10 needs a unit: 10s?`},
	} {
		err := CheckUnits(tc.given)
		checkUsageError(t, err, tc.flag)
		assert.EqualError(t, err, tc.want)
	}
	for _, tc := range []struct {
		cmd   Command
		given map[string]string
		want  string
	}{
		{Batch, map[string]string{"period": "100"}, `invalid --period "100": a duration needs a unit: 100ms?`},
		{Batch, map[string]string{"min-time": "10"}, `invalid --min-time "10": a duration needs a unit: 10s?`},
		{Latency, map[string]string{"work": "4"}, `invalid --work "4": a duration needs a unit: 4ms?`},
		{Latency, map[string]string{"wait": "2.5"}, `invalid --wait "2.5": a duration needs a unit: 2.5ms?`},
		{Latency, map[string]string{"cpus": "0.5", "burst": "20"}, `invalid --burst "20": a duration needs a unit: 20ms?`},
	} {
		_, err := ResolveFor(tc.cmd, tc.given)
		assert.EqualError(t, err, tc.want)
	}
	// The parsers hint on their own too: MicroDuration (sample's --period).
	_, err := MicroDuration("period", "250")
	assert.EqualError(t, err, `invalid --period "250": a duration needs a unit: 250ms?`)
}
