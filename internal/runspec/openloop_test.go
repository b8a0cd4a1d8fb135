package runspec

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OpenLoop's JSON keys name their unit.
func TestOpenLoopJSONKeys(t *testing.T) {
	b, err := json.Marshal(OpenLoop{On: time.Millisecond})
	require.NoError(t, err)
	var keys map[string]any
	require.NoError(t, json.Unmarshal(b, &keys))
	for _, k := range []string{"rate", "arrivals", "on_ns", "off_ns", "work_ns", "wait_ns", "workers", "queue", "duration_ns", "seed", "gomaxprocs"} {
		assert.Contains(t, keys, k)
	}
	assert.EqualValues(t, 1e6, keys["on_ns"])
}
