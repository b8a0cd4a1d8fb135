package testenv

import (
	"os/exec"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeTB records what SkipOrFail asks of a test; both end the goroutine,
// as testing's own do.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()          {}
func (f *fakeTB) Skip(args ...any) { f.skipped = args[0].(string); runtime.Goexit() }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = format
	runtime.Goexit()
}

// call runs SkipOrFail on a fake, on a goroutine of its own.
func call(why string) fakeTB {
	var f fakeTB
	done := make(chan struct{})
	go func() {
		defer close(done)
		SkipOrFail(&f, why)
	}()
	<-done
	return f
}

func TestSkipOrFail(t *testing.T) {
	t.Setenv("CI", "")
	f := call("no thing")
	assert.Equal(t, "no thing", f.skipped)
	assert.Empty(t, f.failed)

	t.Setenv("CI", "true")
	f = call("no thing")
	assert.Empty(t, f.skipped, "in CI a missing precondition fails")
	assert.Equal(t, "precondition missing in CI: %s", f.failed)
}

func TestRun(t *testing.T) {
	out, errb, code := Run(t, exec.Command("sh", "-c", "echo out; echo err >&2; exit 3"))
	if out != "out\n" || errb != "err\n" || code != 3 {
		t.Errorf("Run = %q, %q, %d; want \"out\\n\", \"err\\n\", 3", out, errb, code)
	}
	if _, _, code := Run(t, exec.Command("sh", "-c", "kill -KILL $$")); code != -1 {
		t.Errorf("killed by a signal: code %d, want -1", code)
	}
}
