package render

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/throttlebench/throttlebench/internal/report"
)

// benchstat must read what --format gobench writes.
func TestGobenchParsesWithBenchfmt(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteGobench(&buf, []*report.Report{sample()}))
	rd := benchfmt.NewReader(&buf, "run.txt")
	var results []*benchfmt.Result
	for rd.Scan() {
		switch rec := rd.Result(); rec := rec.(type) {
		case *benchfmt.Result:
			results = append(results, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		}
	}
	require.NoError(t, rd.Err())
	require.Len(t, results, 3, "one line per iteration")
	r := results[0]
	assert.Equal(t, "Throttle/cpus=0.5/period=100ms/burst=0s/workers=2/gomaxprocs=2/cost=4/batch=10", string(r.Name))
	ns, ok := r.Value("sec/op")
	require.True(t, ok)
	assert.InDelta(t, 0.100, ns, 1e-9)
	frac, ok := r.Value("throttled-frac")
	require.True(t, ok)
	assert.InDelta(t, 0.75, frac, 1e-9)
	base, sub := r.Name.Parts()
	assert.Equal(t, "Throttle", string(base))
	assert.Contains(t, sub, []byte("/workers=2"))
	assert.Equal(t, "linux", string(r.GetConfig("goos")))
}
