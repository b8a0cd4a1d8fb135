package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// An instance (latency --instances) is a workload child that pays a cold
// start, then serves requests one message at a time, each on its own OS
// thread, as a function instance does. The dispatcher is the parent, which
// stamps every request's scheduled arrival; an instance stamps the start
// and end of its service on CLOCK_MONOTONIC, the system-wide clock the
// parent reads too, so that the parent can split a response time into the
// wait for an instance, the queue inside it and the service.

// InstanceInit configures an instance. It crosses the child pipe as JSON.
type InstanceInit struct {
	// Init is the cold start's CPU work, spent as a request's --work is
	// (the calibrated loop until the thread's CPU clock says so).
	Init time.Duration `json:"init_ns"`
	// InitMemory is the memory the cold start touches, one store per page,
	// and keeps until the instance ends: what a function's runtime and its
	// loaded state occupy.
	InitMemory int64 `json:"init_memory_bytes"`
	// Concurrency is the most requests the instance serves at once; one
	// beyond it waits inside the instance for a slot.
	Concurrency int `json:"concurrency"`
	// IterationsPerMs sizes the slices of the CPU loop between two
	// readings of the thread's CPU clock: the parent's calibration, so
	// that an instance does not pay for one in its cold start.
	IterationsPerMs float64 `json:"iterations_per_ms"`
	// GOMAXPROCS: > 0 sets it; 0 keeps the Go runtime's default.
	GOMAXPROCS int `json:"gomaxprocs"`
}

// InstanceReady is what an instance says when its cold start is over.
type InstanceReady struct {
	Start int64         `json:"start_ns"` // CLOCK_MONOTONIC when the cold start's work began
	End   int64         `json:"end_ns"`   // and when it ended
	CPU   time.Duration `json:"cpu_ns"`   // the process's CPU time so far
	// GOMAXPROCS is the value in force in the instance.
	GOMAXPROCS int `json:"gomaxprocs"`
}

// InstanceRequest is one request sent to an instance.
type InstanceRequest struct {
	ID   int           `json:"id"`
	Work time.Duration `json:"work_ns"` // CPU time, as latency's --work
	Wait time.Duration `json:"wait_ns"` // a sleep after it, as on I/O
}

// InstanceReply is an instance's answer to one request.
type InstanceReply struct {
	ID    int           `json:"id"`
	Start int64         `json:"start_ns"` // CLOCK_MONOTONIC when its service began
	End   int64         `json:"end_ns"`   // and when it ended
	CPU   time.Duration `json:"cpu_ns"`   // the thread CPU time it took
}

// initMemory holds the cold start's memory for the instance's life.
var initMemory []byte

// ColdStart is an instance's start after it has been placed in its slice:
// it sets GOMAXPROCS, touches the memory and spends the CPU work of init.
func ColdStart(ctx context.Context, init InstanceInit) (InstanceReady, error) {
	if init.InitMemory < 0 || init.InitMemory > runspec.MaxInitMemory {
		return InstanceReady{}, fmt.Errorf("%w: init memory %d bytes outside 0–%d", decl.ErrBadConfig, init.InitMemory, runspec.MaxInitMemory)
	}
	gmp := ApplyGOMAXPROCS(init.GOMAXPROCS)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := InstanceReady{Start: Monotonic(), GOMAXPROCS: gmp}
	initMemory = touch(init.InitMemory)
	if err := work(ctx, init.Init, perMs(init)); err != nil {
		return InstanceReady{}, err
	}
	r.End = Monotonic()
	r.CPU, _ = host.ProcessCPU()
	return r, nil
}

// touch allocates n bytes and stores into every page of them, so that
// they are resident: a fresh allocation this large comes from the kernel
// untouched, and only the stores fault its pages in.
func touch(n int64) []byte {
	if n <= 0 {
		return nil
	}
	b := make([]byte, n)
	page := int64(os.Getpagesize())
	for i := int64(0); i < n; i += page {
		b[i] = 1
	}
	return b
}

func perMs(init InstanceInit) float64 {
	if init.IterationsPerMs > 0 {
		return init.IterationsPerMs
	}
	return 1e5 // only sizes the slices between clock readings
}

// Serve performs one request on the calling goroutine, locked to its own
// OS thread for the thread CPU clock: the CPU work, then the wait.
func Serve(ctx context.Context, init InstanceInit, r InstanceRequest) (InstanceReply, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rep := InstanceReply{ID: r.ID, Start: Monotonic()}
	c0 := threadCPU()
	if err := work(ctx, r.Work, perMs(init)); err != nil {
		return rep, err
	}
	rep.CPU = threadCPU() - c0
	if r.Wait > 0 {
		if err := (fineClock{}).SleepUntil(ctx, time.Now().Add(r.Wait)); err != nil {
			return rep, err
		}
	}
	rep.End = Monotonic()
	return rep, nil
}
