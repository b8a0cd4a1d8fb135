package testenv

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// InCI says whether the suite runs in CI: .ci/run sets CI=true.
func InCI() bool { return os.Getenv("CI") == "true" }

// SkipOrFail skips t, saying why, or fails it in CI.
func SkipOrFail(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatalf("precondition missing in CI: %s", why)
	}
	t.Skip(why)
}

// NeedRoot is SkipOrFail unless this process runs as root; why says what
// root is needed for.
func NeedRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		SkipOrFail(t, "needs root "+why)
	}
}

// Run runs cmd to completion and returns what it wrote to stdout and to
// stderr and its exit code (-1 where a signal ended it); t fails where cmd
// could not be run at all.
func Run(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v", cmd, err)
	}
	return out.String(), errb.String(), code
}
