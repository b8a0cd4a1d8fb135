package benchhist

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fixture is go test's real output for two packages, -count 2: the
// stats package's Summarize with -benchmem, and a fake package with
// sub-benchmarks, custom metrics only (ns/op hidden by ReportMetric(0)),
// a benchmark that logs, one that fails, a NaN, a name without the
// GOMAXPROCS suffix, and a malformed result line.
func TestParseGoTestOutput(t *testing.T) {
	f, err := os.Open("testdata/gotest/two-packages.txt")
	require.NoError(t, err)
	defer f.Close()
	benches, warnings, err := Parse(f, "two-packages.txt")
	require.NoError(t, err)

	const mod = "github.com/throttlebench/throttlebench"
	var names []string
	for _, b := range benches {
		names = append(names, strings.TrimPrefix(b.Pkg, mod+"/")+" "+b.Name)
	}
	assert.Equal(t, []string{
		"internal/stats BenchmarkSummarize",
		"test/fake BenchmarkPlain",
		"test/fake BenchmarkSub/cpus=0.5/workers=1",
		"test/fake BenchmarkSub/100ms",
		"test/fake BenchmarkLogs",
		"test/fake BenchmarkOdd",
	}, names, "in order of first appearance; the failing benchmark printed no result")

	s := benches[0]
	assert.Equal(t, 2, s.Procs)
	assert.Equal(t, []int{200, 200}, s.Iters)
	assert.Equal(t, map[string][]float64{
		"ns/op":     {865037, 943232}, // as printed, not benchfmt's sec/op
		"B/op":      {81948, 81921},
		"allocs/op": {1, 1},
	}, s.Metrics)
	assert.Equal(t, map[string]string{"goos": "linux", "goarch": "amd64", "cpu": "AMD EPYC"}, s.Config, "the header, pkg apart")

	sub := benches[2]
	assert.Equal(t, map[string][]float64{"harness-%-of-slice": {1.5, 1.5}, "ours-µs/reading": {2000, 2000}}, sub.Metrics)

	odd := benches[5]
	assert.Equal(t, 1, odd.Procs, "no suffix is GOMAXPROCS 1")
	assert.Equal(t, map[string][]float64{"missed": {5}}, odd.Metrics, "the NaN is left out")

	require.Len(t, warnings, 2)
	assert.Contains(t, warnings[0], "BenchmarkOdd late-mean-µs is NaN")
	assert.Contains(t, warnings[1], "two-packages.txt:26")
}

func TestParseEmpty(t *testing.T) {
	benches, warnings, err := Parse(strings.NewReader("PASS\nok  \tx\t0.1s\n"), "x")
	require.NoError(t, err)
	assert.Empty(t, benches)
	assert.Empty(t, warnings)
}

func TestPath(t *testing.T) {
	const mod = "github.com/throttlebench/throttlebench"
	for _, c := range []struct{ pkg, name, want string }{
		{mod + "/internal/stats", "BenchmarkSummarize", "h/internal/stats/BenchmarkSummarize.jsonl"},
		{mod + "/test/integration", "BenchmarkModelRatio/cpus=0.5/workers=2", "h/test/integration/BenchmarkModelRatio%2Fcpus=0.5%2Fworkers=2.jsonl"},
		{mod + "/internal/usage", "BenchmarkSamplerOverhead/10ms/in process", "h/internal/usage/BenchmarkSamplerOverhead%2F10ms%2Fin%20process.jsonl"},
		{mod + "/internal/x", "BenchmarkA/../../etc", "h/internal/x/BenchmarkA%2F..%2F..%2Fetc.jsonl"},
		{mod, "BenchmarkTop", "h/BenchmarkTop.jsonl"},
		{"example.com/other/pkg", "BenchmarkX", "h/example.com/other/pkg/BenchmarkX.jsonl"},
		{mod + "2/internal/x", "BenchmarkX", "h/github.com/throttlebench/throttlebench2/internal/x/BenchmarkX.jsonl"},
		{"", "BenchmarkNoPkg", "h/BenchmarkNoPkg.jsonl"},
	} {
		assert.Equal(t, c.want, Path("h", mod, c.pkg, c.name), "%s %s", c.pkg, c.name)
	}
	assert.NotEqual(t, Path("h", mod, mod+"/p", "BenchmarkA/b"), Path("h", mod, mod+"/p", "BenchmarkA%2Fb"), "escaping never makes two names one file")
	assert.Equal(t, "%2Ehidden", escape(".hidden"))
}
