//go:build linux

package tracer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/testenv"
)

// needRoot skips a test that must load BPF programs and create cgroups
// without root, and fails it in CI (root, CI=true) when it cannot run.
func needRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		skipOrFail(t, "needs root to load BPF programs and create cgroups (run as root; CI runs it so, with CI=true)")
	}
}

// skipOrFail is testenv's rule: skip, or fail in CI.
var skipOrFail = testenv.SkipOrFail

// throttledCgroup is a cgroup of this test, quota 10 ms per 100 ms.
type throttledCgroup struct {
	hier cgroup.Hierarchy
	dir  string
}

func newThrottledCgroup(t testing.TB) throttledCgroup {
	return newCgroup(t, true)
}

var cgroupSeq atomic.Int64

// newCgroup is a cgroup of this test, limited to 10 ms per 100 ms or not.
func newCgroup(t testing.TB, limited bool) throttledCgroup {
	needRoot(t)
	if _, err := Probe(); err != nil {
		skipOrFail(t, err.Error())
	}
	hier, err := cgroup.Host{Root: "/"}.CPUHierarchy(0)
	if err != nil {
		skipOrFail(t, fmt.Sprintf("no cgroup hierarchy with the cpu controller: %v", err))
	}
	// One name a cgroup: a benchmark makes several before its cleanups run.
	n := cgroupSeq.Add(1)
	cg := throttledCgroup{hier: hier, dir: filepath.Join(hier.MountPoint, fmt.Sprintf("tb-tracer-test-%d-%d", os.Getpid(), n))}
	require.NoError(t, os.Mkdir(cg.dir, 0o755))
	t.Cleanup(func() { removeCgroup(t, cg.dir) })
	// On cgroup v1 (this host, where other work competes) every test
	// cgroup, all at the top, is weighed, so that its quota, not the
	// neighbours, decides when it is throttled (weigh says why). Not in
	// the v2 guests, where the test runs alone and a heavy cgroup starves
	// the test itself (shapes_linux_test.go's newShapeGroup has figures).
	if cg.hier.Version == 1 {
		cg.weigh(t)
	}
	if limited {
		cg.limit(t)
	}
	return cg
}

// limit holds the cgroup to 10 ms per 100 ms.
func (cg throttledCgroup) limit(t testing.TB) {
	if cg.hier.Version == 1 {
		cg.write(t, "cpu.cfs_period_us", "100000")
		cg.write(t, "cpu.cfs_quota_us", "10000")
	} else {
		cg.write(t, "cpu.max", "10000 100000")
	}
}

// weigh gives the cgroup the weight throttlebench gives its default
// parent (cgroup.DefaultParentWeight), so that other work on the machine
// yields the CPU to what runs in it and its quotas, not the neighbours,
// decide how much it runs: beside a host loaded 14 deep, three children of
// a parent at the default weight got less CPU than their 10 ms quotas and
// one was never throttled. On this host's 6.18, beside a busy loop on
// every CPU and the package's tests, a lone spinner held to 10 ms per
// 100 ms at the default weight stayed runnable and unthrottled for up to
// 7.4 s (its periods went by, it did not run; track_linux_test.go's hang
// has the figures): TestSync and
// TestHeldDrains, which wait 5 s for two throttles or for the spinner to
// run to its exit, failed so.
func (cg throttledCgroup) weigh(t testing.TB) {
	if cg.hier.Version == 1 {
		cg.write(t, "cpu.shares", strconv.Itoa(cgroup.DefaultParentWeight*1024/100))
	} else {
		cg.write(t, "cpu.weight", strconv.Itoa(cgroup.DefaultParentWeight))
	}
}

// limitedChild makes a sub-cgroup limited to 10 ms per 100 ms of its own.
func (cg throttledCgroup) limitedChild(t testing.TB, name string) throttledCgroup {
	kid := throttledCgroup{hier: cg.hier, dir: cg.child(t, name)}
	kid.limit(t)
	return kid
}

func (cg throttledCgroup) write(t testing.TB, file, v string) {
	require.NoError(t, os.WriteFile(filepath.Join(cg.dir, file), []byte(v), 0))
}

// child makes a sub-cgroup with no limit of its own (removed first at
// cleanup, Cleanup being last in, first out).
func (cg throttledCgroup) child(t testing.TB, name string) string {
	if cg.hier.Version == 2 {
		cg.write(t, "cgroup.subtree_control", "+cpu")
	}
	d := filepath.Join(cg.dir, name)
	require.NoError(t, os.Mkdir(d, 0o755))
	t.Cleanup(func() { removeCgroup(t, d) })
	return d
}

// throttled reads the cgroup's throttled time from cpu.stat:
// throttled_time (ns) on v1, throttled_usec on v2.
func (cg throttledCgroup) throttled(t testing.TB) time.Duration {
	b, err := os.ReadFile(filepath.Join(cg.dir, "cpu.stat"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		require.NoError(t, err, line)
		switch f[0] {
		case "throttled_time":
			return time.Duration(n)
		case "throttled_usec":
			return time.Duration(n) * time.Microsecond
		}
	}
	t.Fatalf("no throttled time in %s/cpu.stat:\n%s", cg.dir, b)
	return 0
}

// removeCgroup removes a test cgroup; its processes were killed and reaped
// by earlier cleanups, but the kernel may take a moment to let it go.
func removeCgroup(t testing.TB, dir string) {
	var err error
	for range 50 {
		if err = os.Remove(dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("remove test cgroup %s: %v", dir, err)
}
