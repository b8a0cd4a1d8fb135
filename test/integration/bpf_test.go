//go:build linux

package integration

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tracerPrograms counts the BPF programs of throttlebench's tracer loaded
// in the kernel (sched_switch_ and sched_wakeup_, btf or raw, names cut to
// 15 characters):
// a program still attached through a leaked link, or loaded by a leaked
// collection, counts. Others' programs are only read for their names.
func tracerPrograms(t testing.TB) int {
	t.Helper()
	n := 0
	var id ebpf.ProgramID
	for {
		next, err := ebpf.ProgramGetNextID(id)
		if errors.Is(err, os.ErrNotExist) {
			return n
		}
		if err != nil {
			return n // without the right to list them (not root), none is counted
		}
		id = next
		p, err := ebpf.NewProgramFromID(id)
		if err != nil {
			continue // gone meanwhile
		}
		info, err := p.Info()
		p.Close()
		if err == nil && (strings.HasPrefix(info.Name, "sched_switch_") || strings.HasPrefix(info.Name, "sched_wakeup_")) {
			n++
		}
	}
}

// The soak's count of the tracer's programs sees a traced run's program
// while it runs, and none once it is interrupted: the count can fail.
func TestTracerProgramsCounted(t *testing.T) {
	needTrace(t)
	hier := needRoot(t)
	before := tracerPrograms(t)
	cmd := exec.Command(binary, "run", "--cgroup", "create", "--parent", testParent(t, hier), "--trace", "--cpus", "0.5",
		"--batch", "20", "--iterations", "1000")
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	assert.Eventually(t, func() bool { return tracerPrograms(t) > before }, 10*time.Second, 20*time.Millisecond,
		"the traced run's program is loaded")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the traced run did not end within 30 s of SIGINT")
	}
	assert.Eventually(t, func() bool { return tracerPrograms(t) == before }, 2*time.Second, 10*time.Millisecond,
		"nothing of the tracer's left after SIGINT")
}
