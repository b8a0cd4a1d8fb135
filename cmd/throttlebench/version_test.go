package main

import (
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `version` and `--version` print one line: the version, the commit and
// the Go that built the binary (issue 33: --version was an unknown flag).
func TestVersionCommandAndFlag(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		code, stdout, stderr := runCLI(args...)
		require.Equal(t, exitOK, code, stderr)
		assert.Empty(t, stderr)
		assert.Equal(t, 1, strings.Count(stdout, "\n"), "one line: %q", stdout)
		assert.True(t, strings.HasPrefix(stdout, "throttlebench "+version+" (commit "), stdout)
		assert.Contains(t, stdout, runtime.Version())
	}
}

// The commit is Go's own vcs.revision where the build has one, marked
// dirty with uncommitted changes; else the one the Makefile stamped.
func TestDescribeBuild(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.99", Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	line := describeBuild("v1.2.3", "stamped", info)
	assert.True(t, strings.HasPrefix(line, "throttlebench v1.2.3 (commit abc123+dirty, go1.99, "), line)
	line = describeBuild("dev", "def456", &debug.BuildInfo{GoVersion: "go1.99"})
	assert.Contains(t, line, "commit def456,")
	assert.Contains(t, describeBuild("dev", "", nil), "commit unknown, "+runtime.Version())
}

// An unknown flag names the command to ask for help once: the root's own
// was "throttlebench throttlebench --help".
func TestUnknownFlagNamesTheCommandOnce(t *testing.T) {
	for args, want := range map[string]string{"--bogus": "(throttlebench --help lists the flags)", "sweep --bogus": "(throttlebench sweep --help lists the flags)"} {
		code, _, stderr := runCLI(strings.Fields(args)...)
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, want)
		assert.NotContains(t, stderr, "throttlebench throttlebench")
	}
}

// Every flag of every command says its default once: --buffer said
// "(default 1 MiB) (default 1048576)" (issue 33).
func TestHelpSaysEachDefaultOnce(t *testing.T) {
	started := false
	root := newRootCmd(io.Discard, io.Discard, &started)
	checked := 0
	for _, cmd := range append(root.Commands(), root) {
		for _, line := range strings.Split(cmd.Flags().FlagUsages(), "\n") {
			checked++
			assert.LessOrEqual(t, strings.Count(line, "(default"), 1, "%s: %s", cmd.Name(), line)
		}
	}
	assert.Greater(t, checked, 100)
}
