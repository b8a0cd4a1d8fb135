package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every invalid or hostile input, across all commands, in one table: exit 2,
// nothing on stdout, and exactly one line on stderr naming the flag (or
// argument), the value and what is allowed. Validation happens before any
// cgroup is touched, so these run anywhere; the integration suite checks
// that such input creates nothing.
func TestInvalidInputExits2(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling))
	base, reg := fixture("base.jsonl"), fixture("regression.jsonl")
	svgDir := filepath.Join(dir, "a-directory.svg")
	emptyTrace, busyTrace := filepath.Join(dir, "empty.json"), filepath.Join(dir, "busy.json")
	require.NoError(t, os.WriteFile(emptyTrace, []byte(`{"interval_ms":100,"usage_cpus":[]}`), 0o644))
	require.NoError(t, os.WriteFile(busyTrace, []byte(`{"interval_ms":100,"usage_cpus":[0.5]}`), 0o644))
	require.NoError(t, os.Mkdir(svgDir, 0o755))
	emptyDir, brokenArchive := filepath.Join(dir, "empty-dir"), filepath.Join(dir, "broken.tar.gz")
	require.NoError(t, os.Mkdir(emptyDir, 0o755))
	require.NoError(t, os.WriteFile(brokenArchive, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 'x'}, 0o644))

	f := invalidFiles{dir: dir, dangling: dangling, base: base, reg: reg, svgDir: svgDir, emptyTrace: emptyTrace, busyTrace: busyTrace, emptyDir: emptyDir, brokenArchive: brokenArchive}
	var cases []invalidCase
	for _, group := range [][]invalidCase{invalidRunCases(f), invalidSweepCases(f), invalidLatencyCases(f), invalidSizeCases(f), invalidOthersCases(f)} {
		cases = append(cases, group...)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		name := strings.Join(c.args, " ")
		require.False(t, seen[name], "listed twice: %s", name)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(c.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, stdout)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "exactly one line: %q", stderr)
			assert.True(t, strings.HasPrefix(stderr, "throttlebench: "), stderr)
			for _, w := range c.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
	assert.GreaterOrEqual(t, len(cases), 40, "the hardening issue asks for at least 40")
}

// invalidCase is one invalid input and what its one error line must say.
type invalidCase struct {
	args []string
	want []string // substrings of the one error line
}

// invalidFiles are the files and paths the invalid inputs name.
type invalidFiles struct {
	dir, dangling, base, reg, svgDir, emptyTrace, busyTrace, emptyDir, brokenArchive string
}
