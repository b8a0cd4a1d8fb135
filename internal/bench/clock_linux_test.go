package bench

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sys/unix"
)

// A signal ends a sleep in the kernel early (EINTR, whatever SA_RESTART),
// and fineClock sleeps again to the same instant: the runtime's own
// preemption signal, SIGURG, must not end a worker's wait early.
func TestFineClockSleepsOnThroughASignal(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	target := time.Now().Add(fineLead)
	go func() {
		time.Sleep(fineLead / 4)
		_ = unix.Tgkill(unix.Getpid(), tid, unix.SIGURG)
	}()
	assert.NoError(t, fineClock{}.SleepUntil(context.Background(), target))
	assert.False(t, time.Now().Before(target))
}
