//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyColumns are the first n fields of every line of a CSV table: the
// configurations' keys, which the same command run twice names alike
// (the measured figures differ between two runs).
func keyColumns(csv string, n int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(csv), "\n") {
		f := strings.Split(l, ",")
		out = append(out, strings.Join(f[:min(n, len(f))], ","))
	}
	return out
}

// Every kind of result, written by the real binary, read back by show: its
// JSON is the file, its table names the configurations as the command's
// own table did (the command run again, to stdout, gives the keys), its
// plot is drawn.
func TestShowReadsEveryKind(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	needPython3(t)
	port := freePort(t)
	spin := []string{"--workload", "spin", "--units", "100", "--batch", "2", "--iterations", "2", "--warmup", "0", "--parent", parent}
	for _, c := range []struct {
		name string
		args []string
		keys int // the configurations' columns in the CSV
		plot bool
	}{
		{"run", append([]string{"run", "--cpus", "0.5", "--workers", "2"}, spin...), 2, false},
		{"sweep", append([]string{"sweep", "-q", "--cpus", "0.5,1", "--workers", "1,2"}, spin...), 2, true},
		{"latency", []string{"latency", "--parent", parent, "--cpus", "0.5,1", "--burst", "0,20ms", "--rate", "50", "--work", "2ms", "--duration", "500ms"}, 4, true},
		{"instances", []string{"latency", "--parent", parent, "--cpus", "1", "--instances", "shared,per-request", "--arrivals", "once", "--count", "2", "--summary"}, 2, true},
		{"target", []string{"latency", "--parent", parent, "--target", "http://127.0.0.1:" + port + "/", "--cpus", "0.5", "--rate", "20", "--duration", "500ms",
			"--serve", "--", "python3", "../../docs/examples/cpu_server.py", port, "1"}, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			saved := filepath.Join(dir, "r.json")
			// The flags before a --serve command's --.
			with := func(extra ...string) []string {
				flags, cmd, _ := strings.Cut(strings.Join(c.args, "\x00"), "\x00--\x00")
				out := append(strings.Split(flags, "\x00"), extra...)
				if cmd != "" {
					out = append(append(out, "--"), strings.Split(cmd, "\x00")...)
				}
				return out
			}
			o := tb(t, with("--format", "json", "-o", saved)...)
			require.Equal(t, 0, o.code, o.stderr)
			own := tb(t, with("--format", "csv")...)
			require.Equal(t, 0, own.code, own.stderr)

			shown := tb(t, "show", saved, "--format", "csv")
			require.Equal(t, 0, shown.code, shown.stderr)
			assert.Equal(t, keyColumns(own.stdout, c.keys), keyColumns(shown.stdout, c.keys), "the configurations named as the command named them")
			text := tb(t, "show", saved)
			require.Equal(t, 0, text.code, text.stderr)
			assert.NotEmpty(t, text.stdout)

			js := tb(t, "show", saved, "--format", "json")
			require.Equal(t, 0, js.code, js.stderr)
			data, err := os.ReadFile(saved)
			require.NoError(t, err)
			assert.Equal(t, string(data), js.stdout, "nothing lost on the way")

			if c.plot {
				svg := filepath.Join(dir, "r.svg")
				p := tb(t, "show", saved, "--plot", svg, "--format", "json")
				require.Equal(t, 0, p.code, p.stderr)
				assert.FileExists(t, svg)
			}
		})
	}
}

// sample's summary, shown again, is the summary sample printed, but for
// the figures of two different samplings. Their sentences must not depend
// on the figures: with --limit 0.5 the burst advice said "within the
// kernel's cap" after one sampling of a busy machine and "above the
// kernel's cap ... needs --period" after the other (a clean-clone CI run);
// no interval comes near 1024 CPUs, so neither sampling has a burst to
// advise (internal/usage's tests render that advice).
func TestShowReadsSample(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	saved := filepath.Join(dir, "usage.json")
	args := []string{"sample", "--cgroup", "/", "--interval", "50ms", "--duration", "300ms", "--limit", "1024"}
	o := tb(t, append(args, "-o", saved)...)
	require.Equal(t, 0, o.code, o.stderr)
	own := tb(t, append(args, "--format", "text")...)
	require.Equal(t, 0, own.code, own.stderr)
	shown := tb(t, "show", saved)
	require.Equal(t, 0, shown.code, shown.stderr)
	// A figure and its unit; "m" is a Kubernetes quantity's millicores,
	// which a whole number of CPUs is written without ("2" beside "1950m").
	figures := regexp.MustCompile(`[0-9][0-9.]*(\s?(ns|µs|ms|s|m)\b)?`)
	// A limit below the kernel's least quota is raised to it and says so,
	// which depends on the figure: a quiet machine's / used under 0.01 CPUs
	// in one sampling and more in the other (a clean-clone CI run).
	// internal/usage's nolimit_test renders that clause.
	raised := regexp.MustCompile(` \(raised from [^)]*\)`)
	mask := func(s string) string {
		return strings.Join(strings.Fields(figures.ReplaceAllString(raised.ReplaceAllString(s, ""), "#")), " ")
	}
	assert.Equal(t, mask(own.stdout), mask(shown.stdout))
	assert.Contains(t, shown.stdout, "above 1024")

	png := filepath.Join(dir, "usage.png")
	p := tb(t, "show", saved, "--plot", png, "--format", "json")
	require.Equal(t, 0, p.code, p.stderr)
	assert.FileExists(t, png)
}
