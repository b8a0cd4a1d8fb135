//go:build linux

package bench

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/topology"
)

// threadAffinities locks more goroutines to threads than the process has
// threads, all at once, so that they take every idle thread the runtime
// holds (and new ones), and returns the affinity each thread had. The main
// thread is left out: a goroutine that ends locked there parks it, with
// whatever affinity it had, and the runtime runs nothing else on it.
func threadAffinities(t *testing.T) map[int][]int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	n := len(tasks) + 4
	var (
		mu      sync.Mutex
		got     = map[int][]int{}
		errs    []error
		ready   sync.WaitGroup
		release = make(chan struct{})
	)
	ready.Add(n)
	for range n {
		go func() {
			runtime.LockOSThread() // never undone: the thread ends with the goroutine
			cpus, err := topology.Affinity()
			mu.Lock()
			if tid := unix.Gettid(); tid != os.Getpid() {
				got[tid] = cpus
			}
			errs = append(errs, err)
			mu.Unlock()
			ready.Done()
			<-release
		}()
	}
	ready.Wait()
	close(release)
	require.NoError(t, errors.Join(errs...))
	require.GreaterOrEqual(t, len(got), n-1, "each goroutine on a thread of its own")
	return got
}
