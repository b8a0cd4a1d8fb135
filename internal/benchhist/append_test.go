package benchhist

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testEnv(at string) Env {
	return Env{Time: at, Machine: Machine{CPUModel: "AMD EPYC 7B13", NumCPU: 2, MemBytes: 24684084 * 1024},
		Kernel: "6.18.44", Cgroup: Cgroup{Version: 1, Mode: "hybrid"}, Go: "go1.26.8", Commit: "384ded7", Dirty: true}
}

// go test's output in, a line per benchmark out, read back as it went in.
func TestAppendAllRoundTrip(t *testing.T) {
	f, err := os.Open("testdata/gotest/two-packages.txt")
	require.NoError(t, err)
	defer f.Close()
	benches, _, err := Parse(f, "two-packages.txt")
	require.NoError(t, err)
	root := filepath.Join(t.TempDir(), "bench", "history")
	const mod = "github.com/throttlebench/throttlebench"

	files, err := AppendAll(benches, testEnv("2026-01-01T10:00:00Z"), root, mod)
	require.NoError(t, err)
	require.Len(t, files, len(benches))
	assert.Equal(t, filepath.Join(root, "internal/stats/BenchmarkSummarize.jsonl"), files[0])
	_, err = AppendAll(benches, testEnv("2026-01-02T10:00:00Z"), root, mod)
	require.NoError(t, err)

	hs, warnings, err := Load(root)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	require.Len(t, hs, len(benches))
	for _, h := range hs {
		require.Len(t, h.Lines, 2, h.File)
		assert.Equal(t, "2026-01-01T10:00:00Z", h.Lines[0].Time)
		assert.Equal(t, "2026-01-02T10:00:00Z", h.Lines[1].Time)
	}
	var got Line
	for _, h := range hs {
		if h.Lines[0].Name == "BenchmarkSummarize" {
			got = h.Lines[1]
		}
	}
	want := testEnv("2026-01-02T10:00:00Z").Line(benches[0])
	assert.Equal(t, want, got)
	assert.Equal(t, []float64{865037, 943232}, got.Metrics["ns/op"])
	assert.True(t, got.Dirty)
}

// One write per line to a file opened O_APPEND: writers running at once
// never interleave, and every line is whole. (A writer that finds another
// one's line half written may start its own on a new line: a blank line,
// which Load skips.)
func TestAppendConcurrentLinesStayWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h", "BenchmarkX.jsonl")
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				l := testEnv(fmt.Sprintf("2026-01-01T10:%02d:%02dZ", w, i))
				line := l.Line(Bench{Name: "BenchmarkX", Procs: 2, Iters: make([]int, 100),
					Metrics: map[string][]float64{"ns/op": make([]float64, 500)}})
				assert.NoError(t, Append(path, line))
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, writers*each)
	for _, l := range lines {
		var got Line
		require.NoError(t, json.Unmarshal([]byte(l), &got))
	}
}

// A file that ends in half a line (a machine that lost power mid-write)
// gets the next line on a line of its own; Load skips the broken one.
func TestAppendAfterTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BenchmarkX.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"time":"2026-01-01T10:00:00Z","mach`), 0o644))
	l := testEnv("2026-01-02T10:00:00Z").Line(Bench{Name: "BenchmarkX", Procs: 2, Iters: []int{1}, Metrics: map[string][]float64{"ns/op": {3}}})
	require.NoError(t, Append(path, l))
	hs, warnings, err := Load(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, hs, 1)
	assert.Equal(t, []Line{l}, hs[0].Lines)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "BenchmarkX.jsonl:1: not a history line, skipped")
}

func TestAppendRefusesAFileAsDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "internal"), nil, 0o644))
	err := Append(filepath.Join(dir, "internal", "stats", "BenchmarkX.jsonl"), Line{Time: "t", Name: "BenchmarkX"})
	assert.ErrorContains(t, err, "not a directory")
}

func TestAppendRefusesNaN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BenchmarkX.jsonl")
	l := testEnv("2026-01-01T10:00:00Z").Line(Bench{Name: "BenchmarkX", Metrics: map[string][]float64{"x": {nan()}}})
	assert.Error(t, Append(path, l), "Parse leaves NaN out; a NaN here is a bug")
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err), "nothing written")
}

func TestLoadSkipsWhatIsNotALine(t *testing.T) {
	hs, warnings, err := Load("testdata/load")
	require.NoError(t, err)
	require.Len(t, hs, 1, "README is not a history")
	require.Len(t, hs[0].Lines, 2)
	assert.Equal(t, "2026-01-01T10:00:00Z", hs[0].Lines[0].Time)
	assert.Equal(t, "2026-01-04T10:00:00Z", hs[0].Lines[1].Time)
	require.Len(t, warnings, 3)
	assert.Contains(t, warnings[0], "BenchmarkSummarize.jsonl:2: not a history line")
	assert.Contains(t, warnings[1], "BenchmarkSummarize.jsonl:3: not a history line")
	assert.Contains(t, warnings[2], "BenchmarkSummarize.jsonl:4: a history line without its time or name")
}

func TestLoadMissingRoot(t *testing.T) {
	_, _, err := Load(filepath.Join(t.TempDir(), "none"))
	assert.Error(t, err)
}

func TestReadEnv(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	e := ReadEnv("testdata/root/hybrid", at)
	assert.Equal(t, "2026-01-02T02:04:05Z", e.Time, "UTC")
	assert.Equal(t, "AMD EPYC 7B13", e.Machine.CPUModel)
	assert.Equal(t, uint64(24684084*1024), e.Machine.MemBytes)
	assert.Positive(t, e.Machine.NumCPU)
	assert.Equal(t, Cgroup{Version: 1, Mode: "hybrid"}, e.Cgroup)
	assert.NotEmpty(t, e.Go)

	e = ReadEnv("testdata/root/v2", at)
	assert.Equal(t, "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz", e.Machine.CPUModel)
	assert.Equal(t, uint64(8000000*1024), e.Machine.MemBytes)
	assert.Equal(t, Cgroup{Version: 2, Mode: "v2"}, e.Cgroup)

	e = ReadEnv("testdata/root/empty", at)
	assert.Equal(t, Machine{NumCPU: e.Machine.NumCPU}, e.Machine, "what cannot be read stays empty")
	assert.Equal(t, Cgroup{}, e.Cgroup)
}

func TestMemTotal(t *testing.T) {
	for in, want := range map[string]uint64{
		"MemTotal:       24684084 kB\nMemFree: 1 kB\n": 24684084 * 1024,
		"MemFree: 1 kB\nMemTotal: 10 kB\n":             10 * 1024,
		"MemTotal: 4096\n":                             4096,
		"MemTotal:\n":                                  0,
		"MemTotal: lots kB\n":                          0,
		"":                                             0,
	} {
		assert.Equal(t, want, memTotal([]byte(in)), "%q", in)
	}
}
