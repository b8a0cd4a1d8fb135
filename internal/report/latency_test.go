package report

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A latency result written before generator_late_ms became
// dispatch_late_ms (testdata: latency --cgroup current --rate 50 --work
// 1ms --duration 1s from the binary of 260cb6d) still decodes, its late
// dispatch in DispatchLateMs, the rest as before; written again, it has
// the new key only.
func TestLatencyReadsTheOldLateKey(t *testing.T) {
	data, err := os.ReadFile("testdata/latency-generator-late.json")
	require.NoError(t, err)
	require.Contains(t, string(data), `"generator_late_ms": 8.135111`)
	var r Latency
	require.NoError(t, json.Unmarshal(data, &r))
	assert.Equal(t, 8.135111, r.DispatchLateMs)
	assert.Equal(t, 1, r.SchemaVersion)
	assert.Equal(t, 45, r.Completed)
	assert.Equal(t, "current", r.Cgroup.Mode)
	assert.Equal(t, 10.102054, r.LatencyMs.P99)
	assert.Nil(t, r.InstancesResult)

	var out bytes.Buffer
	require.NoError(t, WriteJSON(&out, &r))
	assert.NotContains(t, out.String(), "generator_late_ms")
	assert.Contains(t, out.String(), `"dispatch_late_ms": 8.135111`)
}

// The new key wins where a file has both; an instances result keeps its
// own keys through the decoder (the embedded structs).
func TestLatencyNewLateKeyFirst(t *testing.T) {
	var r Latency
	require.NoError(t, json.Unmarshal([]byte(`{"schema_version":1,"generator_late_ms":9,"dispatch_late_ms":2}`), &r))
	assert.Equal(t, 2.0, r.DispatchLateMs)

	in := Latency{SchemaVersion: 1, DispatchLateMs: 3.5, InstancesResult: &InstancesResult{InstancesStarted: 4, ColdStarts: 4, Failed: 1}}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	var back Latency
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, 3.5, back.DispatchLateMs)
	require.NotNil(t, back.InstancesResult)
	assert.Equal(t, 4, back.InstancesStarted)
	assert.Equal(t, 1, back.Failed)
	// A value that is not a number is an error, as before.
	assert.Error(t, json.Unmarshal([]byte(`{"generator_late_ms":"late"}`), &back))
}
