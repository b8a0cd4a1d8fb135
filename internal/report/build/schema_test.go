package build

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/report"
)

// The schema's Calibration and Bill are converted from driver's and
// instances' types: the conversion checks the fields, this their keys, so
// that a tag changed on one side cannot change the JSON unnoticed.
func TestSchemaCopiesKeepTheirKeys(t *testing.T) {
	same := func(t *testing.T, theirs, ours any) {
		t.Helper()
		a, err := json.Marshal(theirs)
		require.NoError(t, err)
		b, err := json.Marshal(ours)
		require.NoError(t, err)
		assert.JSONEq(t, string(a), string(b))
	}
	cal := bench.Calibration{Loop: "xorshift", IterationsPerMs: 1234.5, Clock: "thread", Rounds: 9, RoundIterations: 42, Took: 25 * time.Millisecond}
	same(t, cal, report.Calibration(cal))
	bill := instances.Bill{RequestMs: 1, RequestGBs: 2, InstanceMs: 3, InstanceCPUs: 4, CPUShare: 5}
	same(t, bill, report.Bill(bill))
}
