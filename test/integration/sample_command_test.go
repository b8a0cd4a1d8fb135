//go:build linux

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampledCommand is the part of sample -- CMD's JSON the test reads.
type sampledCommand struct {
	Cgroup struct {
		Path string `json:"path"`
		Dir  string `json:"dir"`
	} `json:"cgroup"`
	Interrupted bool      `json:"interrupted"`
	UsageCPUs   []float64 `json:"usage_cpus"`
	Warnings    warnings  `json:"warnings"`
}

// sample -- CMD starts the command in a slice of its own and samples that
// slice until the command exits, Ctrl-C or its crash ends it; on every
// path the output is written and nothing is left: no process the command
// started (each carries the test's tag in its environment), no slice
// (issue 33).
func TestSampleCommand(t *testing.T) {
	hier := needRoot(t)
	tag := fmt.Sprintf("TB_SAMPLE_COMMAND=%d", time.Now().UnixNano())
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command(binary, append([]string{"sample", "--format", "json", "--interval", "50ms"}, args...)...)
		cmd.Env = append(os.Environ(), tag)
		return cmd
	}
	// nothingLeft checks the run's slice (in the cpu hierarchy, and its
	// cpuacct twin where that is apart) and the command's processes are gone.
	nothingLeft := func(t *testing.T, s sampledCommand) {
		t.Helper()
		assert.True(t, strings.HasPrefix(s.Cgroup.Path, "/throttlebench/tb-"), "a slice of its own: %s", s.Cgroup.Path)
		assert.NoDirExists(t, s.Cgroup.Dir)
		assert.NoDirExists(t, filepath.Join(hier.MountPoint, s.Cgroup.Path))
		noProcessLeft(t, "tagged processes", tag, func() []int { return tagged(tag) })
	}
	decode := func(t *testing.T, out string) sampledCommand {
		t.Helper()
		var s sampledCommand
		require.NoError(t, json.Unmarshal([]byte(out), &s), "%s", out)
		require.NotEmpty(t, s.UsageCPUs)
		return s
	}

	t.Run("exits", func(t *testing.T) {
		o := runCmd(t, start("--", "sh", "-c", `timeout 0.5 sh -c 'while :; do :; done'; true`))
		require.Equal(t, 0, o.code, o.stderr)
		s := decode(t, o.stdout)
		assert.False(t, s.Interrupted, "the command's end is sampling's")
		// A busy loop alone in the slice: most of a CPU on a quiet host,
		// some of one on a busy one; a direction, not a figure.
		assert.Greater(t, mean(s.UsageCPUs), 0.05, "%v", s.UsageCPUs)
		assert.Empty(t, s.Warnings, "one slice, not the machine")
		nothingLeft(t, s)
	})

	t.Run("crash", func(t *testing.T) {
		o := runCmd(t, start("--", "sh", "-c", "sleep 0.3; echo boom >&2; exit 3"))
		assert.Equal(t, 1, o.code, o.stderr)
		// The command as typed, quoted (issue 33: its argv was joined bare).
		assert.Contains(t, o.stderr, "the command `sh -c 'sleep 0.3; echo boom >&2; exit 3'` ended with exit status 3")
		assert.Contains(t, o.stderr, "boom")
		nothingLeft(t, decode(t, o.stdout))
	})

	t.Run("Ctrl-C", func(t *testing.T) {
		// A daemon out of the command's process group, which only the
		// slice still finds. The command says it is up once half a second
		// (ten intervals) has passed, so that there is a sample to write.
		pidFile := filepath.Join(t.TempDir(), "daemon")
		var out, errb bytes.Buffer
		cmd := start("--", "sh", "-c", `setsid sleep 1000 & sleep 0.5; echo $! > "$1"; exec sleep 1000`, "sh", pidFile)
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		// The event: the daemon is up (a minute is a deadline for a hang).
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if b, _ := os.ReadFile(pidFile); len(b) > 0 {
				break
			}
		}
		require.FileExists(t, pidFile)
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		require.NoError(t, cmd.Wait(), "without --duration, Ctrl-C is the normal end: %s", errb.String())
		s := decode(t, out.String())
		assert.True(t, s.Interrupted)
		assert.Contains(t, errb.String(), "the command left 1 process in its slice after it was stopped: killed")
		nothingLeft(t, s)
	})

	// Bad input creates nothing.
	for _, args := range [][]string{
		{"sample", "--", "no-such-command-" + tag},
		{"sample", "--cgroup", "/", "--", "true"},
		{"sample", "true"},
	} {
		o := tb(t, args...)
		assert.Equal(t, 2, o.code, "%v: %s", args, o.stderr)
		assert.Contains(t, o.stderr, "command", "%v", args)
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
