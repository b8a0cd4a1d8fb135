//go:build linux

package childproto

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// GuardArg is the hidden argument that makes the binary the guard of a
// --serve slice: `exe GuardArg DIR`, started outside the slice in a
// process group of its own, reads its stdin to the end. The run writes
// "done" there once it has stopped the server; an end without it means
// the run died (SIGKILL, which no handler of ours sees): the guard then
// kills whatever is in DIR (the server, and what it forked that the
// server's parent-death signal does not reach), so that the slice is
// empty and `throttlebench cleanup` (or the next run) can remove it.
const GuardArg = "__guard"

// Guard is the guard's body; it returns its exit code.
func Guard(args []string, stdin io.Reader, stderr io.Writer) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	if len(args) != 1 {
		fmt.Fprintln(stderr, "throttlebench guard: want the slice's directory")
		return 2
	}
	b, _ := io.ReadAll(stdin)
	if strings.TrimSpace(string(b)) == "done" {
		return 0
	}
	if _, err := cgroup.KillIn(args[0], 0); err != nil {
		fmt.Fprintf(stderr, "throttlebench guard: %v\n", err)
		return 1
	}
	return 0
}

// GuardProcess is a started guard; Done tells it the run ended in order.
type GuardProcess struct {
	cmd *exec.Cmd
	w   *os.File
}

// StartGuard starts the guard of the slice at dir (GuardArg).
func StartGuard(exe, dir string) (*GuardProcess, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, GuardArg, dir)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C is ours to handle, not its
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("start the slice's guard: %w", err)
	}
	return &GuardProcess{cmd: cmd, w: w}, nil
}

func (g *GuardProcess) Done() {
	g.w.Write([]byte("done\n"))
	g.w.Close()
	g.cmd.Wait()
}
