package childproto

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// ExecArg is the hidden argument that makes the binary the shim of a
// server latency --serve starts: `exe ExecArg CMD [ARGS...]` waits for
// one byte on fd 3 (ExecFD), then replaces itself with CMD. The parent
// moves the shim into its slice in between, so that nothing of the
// server runs outside it (os/exec cannot start a process stopped, and
// cgroup v1 has no clone into a cgroup).
const ExecArg = "__exec"

// ExecFD is the go-ahead's descriptor in the shim (the first of
// exec.Cmd.ExtraFiles).
const ExecFD = 3

// ExecAfterGo is the shim: it returns only when it could not exec (an
// exit code), having said why on stderr. A parent that closes the
// go-ahead without writing (it gave up) ends it with nothing run.
func ExecAfterGo(argv []string, stderr io.Writer) int {
	if len(argv) == 0 {
		fmt.Fprintln(stderr, "throttlebench: no command to serve")
		return 2
	}
	f := os.NewFile(ExecFD, "go-ahead")
	var b [1]byte
	n, _ := f.Read(b[:])
	f.Close()
	if n != 1 {
		return 1
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(stderr, "throttlebench: %v\n", err)
		return 127
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(stderr, "throttlebench: exec %s: %v\n", path, err)
	return 126
}
