//go:build linux

package workload

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/report"
)

func newCmd(t *testing.T, argv []string, more ...func(report.Params) report.Params) ProcessWorkload {
	t.Helper()
	raw, _ := json.Marshal(argv)
	ps := report.Params{}.With("command", json.RawMessage(raw))
	for _, m := range more {
		ps = m(ps)
	}
	w, err := New("command", ps, 1)
	require.NoError(t, err)
	return w.(ProcessWorkload)
}

func TestCommandTimesItsRun(t *testing.T) {
	w := newCmd(t, []string{"sleep", "0.05"})
	require.NoError(t, w.DoContext(context.Background()))
	p := w.Last()
	wall := p.End.Sub(p.Start)
	assert.GreaterOrEqual(t, wall, 50*time.Millisecond)
	assert.Less(t, wall, 2*time.Second)
}

// A failure names the status and the end of stderr; --ignore-failure
// measures it anyway.
func TestCommandFailure(t *testing.T) {
	w := newCmd(t, []string{"sh", "-c", "echo first >&2; echo 'the last line' >&2; exit 3"})
	err := w.DoContext(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited with status 3")
	assert.Contains(t, err.Error(), "the last line")
	// The next run's stderr is its own: the file is emptied first.
	err = w.DoContext(context.Background())
	assert.Equal(t, 1, strings.Count(err.Error(), "the last line"), err.Error())

	w = newCmd(t, []string{"sh", "-c", "kill -SEGV $$"})
	err = w.DoContext(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "segmentation fault")

	w = newCmd(t, []string{"sh", "-c", "exit 3"}, func(ps report.Params) report.Params { return ps.With("ignore_failure", true) })
	assert.NoError(t, w.DoContext(context.Background()))
}

// A failed command's stderr comes back as its last lines, each on a line
// of its own, indented (issue 33: a Python traceback was one line of
// about 900 characters with literal \n).
func TestCommandFailureTailLines(t *testing.T) {
	w := newCmd(t, []string{"sh", "-c", `i=1; while [ $i -le 30 ]; do echo "  File line $i" >&2; i=$((i+1)); done; exit 1`})
	err := w.DoContext(context.Background())
	require.Error(t, err)
	msg := err.Error()
	assert.NotContains(t, msg, `\n`, "no escaped newlines")
	assert.Contains(t, msg, "exited with status 1; its stderr ends:\n      File line 11\n      File line 12\n")
	assert.True(t, strings.HasSuffix(msg, "\n      File line 30"), msg)
	assert.NotContains(t, msg, "File line 10\n", "the last 20 lines only")
	assert.Equal(t, 20, strings.Count(msg, "\n    "), msg)
}

// A background grandchild in the command's process group does not outlive
// its iteration, and does not hold the run up.
func TestCommandLeavesNoGrandchild(t *testing.T) {
	pidFile := t.TempDir() + "/pid"
	w := newCmd(t, []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile})
	start := time.Now()
	require.NoError(t, w.DoContext(context.Background()))
	assert.Less(t, time.Since(start), 5*time.Second)
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	require.Positive(t, pid)
	// Killed at once; reaped by init soon after.
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		if s, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(s), ") Z ") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	assert.True(t, len(s) == 0 || strings.Contains(string(s), ") Z "), "the grandchild %d still runs: %s", pid, s)
}

// A cancelled run ends the command (its whole group) at once.
func TestCommandCancelled(t *testing.T) {
	w := newCmd(t, []string{"sleep", "30"})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	assert.Error(t, w.DoContext(ctx))
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestCommandPrepare(t *testing.T) {
	file := t.TempDir() + "/n"
	w := newCmd(t, []string{"sh", "-c", "test -f " + file}, func(ps report.Params) report.Params { return ps.With("prepare", "touch "+file) })
	assert.Error(t, w.DoContext(context.Background()), "not prepared yet")
	ran, err := w.Prepare(context.Background())
	require.NoError(t, err)
	assert.True(t, ran)
	assert.NoError(t, w.DoContext(context.Background()))
}

func TestCommandNaming(t *testing.T) {
	s, err := decl.Lookup("command")
	require.NoError(t, err)
	c := report.Config{Workload: "command", Params: report.Params{}.With("command", []string{"python3", "-c", "sum(range(10))"})}
	assert.Equal(t, "command python3 -c 'sum(range(10))'", s.TextOf(c))
	assert.Equal(t, []string{"python3 -c 'sum(range(10))'"}, s.KeyOf(c))
	assert.Equal(t, "/command=python3_-c_'sum(range(10))'", s.GobenchOf(c))
	_, err = s.Values(map[string]string{})
	assert.ErrorContains(t, err, "no command given")
}
