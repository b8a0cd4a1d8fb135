package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// Every invalid input: exit 2 and one line naming the flag, the value and
// what is allowed. Validation happens before any cgroup is touched, so these
// run anywhere.
func TestRunRejectsInvalidInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // substrings of the one error line
	}{
		{[]string{"--workers", "0"}, []string{"--workers 0", "between 1 and 1024"}},
		{[]string{"--workers", "-3"}, []string{"--workers -3"}},
		{[]string{"--workers", "two"}, []string{`"two"`, "--workers"}},
		{[]string{"--batch", "0"}, []string{"--batch 0", "between 1"}},
		{[]string{"--iterations", "0"}, []string{"--iterations 0"}},
		{[]string{"--warmup", "-1"}, []string{"--warmup -1", "between 0"}},
		{[]string{"--cost", "3"}, []string{"--cost 3", "between 4 and 31"}},
		{[]string{"--cost", "32"}, []string{"--cost 32"}},
		{[]string{"--period", "500us"}, []string{`--period "500us"`, "1ms and 1s"}},
		{[]string{"--period", "2s"}, []string{`--period "2s"`, "1ms and 1s"}},
		{[]string{"--period", "fast"}, []string{`--period "fast"`, "duration"}},
		{[]string{"--period", "1500ns"}, []string{`--period "1500ns"`, "microseconds"}},
		{[]string{"--quota", "500us"}, []string{`--quota "500us"`, "at least 1ms"}},
		{[]string{"--quota", "-5ms"}, []string{`--quota "-5ms"`, "at least 1ms"}},
		{[]string{"--quota", "lots"}, []string{`--quota "lots"`, "or max"}},
		{[]string{"--cpus", "0"}, []string{`--cpus "0"`, "above 0"}},
		{[]string{"--cpus", "-1"}, []string{`--cpus "-1"`}},
		{[]string{"--cpus", "half"}, []string{`--cpus "half"`}},
		{[]string{"--cpus", "0.005"}, []string{`--cpus "0.005"`, "1ms minimum"}},
		{[]string{"--cpus", "0.5", "--quota", "50ms"}, []string{`--cpus "0.5" conflicts with --quota "50ms"`}},
		// Beyond the kernel's 2^44−1 µs: a quota it refuses, or (--cpus) a
		// product that wrapped around to 431459h or to a negative quota.
		{[]string{"--quota", "4887h"}, []string{`--quota "4887h"`, "at most 4886h43m6.044415s"}},
		{[]string{"--cpus", "2e11"}, []string{`--cpus "2e11"`, "above the kernel's maximum of 4886h43m6.044415s per 100ms period"}},
		{[]string{"--quota", "4886h", "--burst", "1h"}, []string{`--burst "1h"`, "must not exceed the kernel's limit"}},
		// Found by FuzzLimitFlags: an unquoted value broke the one line.
		{[]string{"--cpus", "0", "--quota", "\r"}, []string{`--cpus "0" conflicts with --quota "\r"`}},
		{[]string{"--quota", "20ms", "--burst", "30ms"}, []string{`--burst "30ms"`, "exceed the quota 20ms"}},
		{[]string{"--burst", "5ms"}, []string{`--burst "5ms"`, "needs a quota"}},
		{[]string{"--cpus", "0.5", "--burst", "-1ms"}, []string{`--burst "-1ms"`, "negative"}},
		{[]string{"--cgroup", "mine"}, []string{`--cgroup "mine"`, "auto, create, current"}},
		{[]string{"--cgroup", "current", "--cpus", "0.5"}, []string{"--cpus 0.5 cannot be used with --cgroup current"}},
		{[]string{"--cgroup", "current", "--parent", "/x"}, []string{"--parent /x cannot be used with --cgroup current"}},
		{[]string{"--cgroup-version", "3"}, []string{`--cgroup-version "3"`, "auto, 1, 2"}},
		{[]string{"--gomaxprocs", "0"}, []string{`--gomaxprocs "0"`, "workers or runtime"}},
		{[]string{"--gomaxprocs", "all"}, []string{`--gomaxprocs "all"`}},
		{[]string{"--format", "yaml"}, []string{`--format "yaml"`, "json, text"}},
		{[]string{"--workload", "sha"}, []string{`--workload "sha"`, "bcrypt"}},
		{[]string{"--output", "/nonexistent/dir/out.json"}, []string{`--output "/nonexistent/dir/out.json"`, "does not exist"}},
		{[]string{"--timeout", "-1s"}, []string{"--timeout -1s"}},
		{[]string{"--timeout", "soon"}, []string{`"soon"`, "--timeout"}},
		{[]string{"--no-such-flag"}, []string{"unknown flag: --no-such-flag"}},
		{[]string{"extra-arg"}, []string{`unknown command "extra-arg"`}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"run"}, c.args...)...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, stdout)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "exactly one line: %q", stderr)
			for _, w := range c.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

func TestUnknownCommandIsUsageError(t *testing.T) {
	code, _, stderr := runCLI("rnu")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown command "rnu"`)
}

// --output is written whole or not at all, and no temporary file stays.
func TestWriteOutputIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))

	err := writeOutput(path, nil, func(w io.Writer) error {
		io.WriteString(w, "half a resu")
		return errors.New("render failed")
	})
	require.Error(t, err)
	data, _ := os.ReadFile(path)
	assert.Equal(t, "old", string(data), "a failed write must not touch the file")

	require.NoError(t, writeOutput(path, nil, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}))
	data, _ = os.ReadFile(path)
	assert.Equal(t, "new", string(data))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file left: %v", entries)
}
