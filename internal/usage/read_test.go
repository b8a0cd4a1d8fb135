package usage

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	data, err := json.Marshal(File{SchemaVersion: SchemaVersion, IntervalMs: 100, UsageCPUs: []float64{0.5, 0, 2.25}, TMs: []float64{100, 200, 300}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	f, err := ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 0, 2.25}, f.UsageCPUs)
	assert.Equal(t, 100.0, f.IntervalMs)
}

func TestReadFileRefuses(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorIs(t, err, ErrTrace)
	for in, want := range map[string]string{
		`{"interval_ms":100,"usage_cpus":[]}`:       "no usage_cpus",
		`{"interval_ms":100}`:                       "no usage_cpus",
		`{"interval_ms":0,"usage_cpus":[1]}`:        "interval_ms 0",
		`{"interval_ms":100,"usage_cpus":[1,-1]}`:   "element 1 is -1",
		`{"interval_ms":100,"usage_cpus":[0,0]}`:    "all 2 usage_cpus are 0",
		`{"interval_ms":100,"usage_cpus":[1,null]}`: "", // null reads as 0: accepted
		"[1,2,3]":    "cannot unmarshal",
		"not json\n": "invalid character",
		`{"interval_ms":100,"usage_cpus":[1e400]}`: "cannot unmarshal",
		`{"interval_ms":100,"usage_cpus":["1"]}`:   "cannot unmarshal",
	} {
		_, err := ParseFile([]byte(in))
		if want == "" {
			assert.NoError(t, err, in)
			continue
		}
		require.ErrorIs(t, err, ErrTrace, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

// FuzzParseFile: whatever the bytes, no panic, an error wraps ErrTrace on
// one line, and a trace accepted is one the simulator can draw from.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte(`{"interval_ms":100,"usage_cpus":[0.5,0,2.25]}`))
	f.Add([]byte(`{"interval_ms":1e-300,"usage_cpus":[1e6]}`))
	f.Add([]byte(`{"usage_cpus":[0]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseFile(data)
		if err != nil {
			if !errors.Is(err, ErrTrace) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error %q: want ErrTrace, one line", err)
			}
			return
		}
		var sum float64
		for _, v := range got.UsageCPUs {
			if !(v >= 0 && v <= 1e6) {
				t.Fatalf("accepted usage %v", v)
			}
			sum += v
		}
		if !(sum > 0) || !(got.IntervalMs > 0) || math.IsInf(got.IntervalMs, 0) {
			t.Fatalf("accepted sum %v interval %v", sum, got.IntervalMs)
		}
	})
}
