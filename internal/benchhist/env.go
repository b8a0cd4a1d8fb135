package benchhist

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
)

// ReadEnv describes this machine below root ("/" in production, a fixture
// tree in tests): the CPU model (proc/cpuinfo), the CPUs this process may
// use, the memory (proc/meminfo), the kernel (uname -r), the cgroup layout
// (proc/self/mountinfo) and the Go that built the recorder. The run's
// time, Go version, commit and dirtiness are the caller's to fill in when
// it knows better. What cannot be read stays empty.
func ReadEnv(root string, now time.Time) Env {
	h := host.Info(root, now)
	e := Env{
		Time:    now.UTC().Format(time.RFC3339),
		Machine: Machine{CPUModel: h.CPUModel, NumCPU: h.NumCPU},
		Kernel:  h.Kernel,
		Go:      h.GoVersion,
	}
	if data, err := os.ReadFile(filepath.Join(root, "proc/meminfo")); err == nil {
		e.Machine.MemBytes = memTotal(data)
	}
	cg := cgroup.Host{Root: root}
	if hier, err := cg.CPUHierarchy(0); err == nil {
		e.Cgroup.Version = hier.Version
	}
	if l, err := cg.Layout(); err == nil {
		e.Cgroup.Mode = l.Mode
	}
	return e
}

// memTotal is /proc/meminfo's MemTotal in bytes; 0 when absent.
func memTotal(meminfo []byte) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != "MemTotal" {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		return n
	}
	return 0
}
