package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// version is what cgroup v1 and v2 name and read differently, written once
// for each (v1.go, v2.go) and picked once, by Hierarchy.version, as runc
// splits its managers into fs (v1) and fs2 (v2). Nothing else asks which
// version a cgroup is; a slice's file work through containerd/cgroups is
// split the same way (manager, slice_v1_linux.go and slice_v2_linux.go).
type version interface {
	// line is the process's cgroup path in this version's hierarchy of
	// ctrl, from its /proc/PID/cgroup.
	line(pc procCgroups, ctrl string) (string, bool)
	// limitFiles are the CFS bandwidth files and what each sets.
	limitFiles() []limitFile
	// bandwidthFiles are the file that says the kernel has CFS bandwidth
	// control and the burst's (Linux 5.14).
	bandwidthFiles() (bandwidth, burst string)
	// usageFile holds the cgroup's CPU usage counter; parseUsage reads it
	// (Cgroup.Usage) and usageInPlace reads it without allocating
	// (UsageFile, for the sampler).
	usageFile() string
	parseUsage(data []byte) (time.Duration, error)
	usageInPlace(data []byte) (time.Duration, error)
	// noCounter is why a cgroup the user named, with no directory at dir
	// in the usage hierarchy, has no usage counter; usageCounter names
	// the counter as a person reads it (Cgroup.UsageCounter).
	noCounter(cgPath, dir string) error
	usageCounter() string
	// hostTopMark is the file that tells the host's top cgroup from a
	// cgroup namespace's / (Cgroup.IsHostRoot): atTop says the kernel
	// gives it to the host's top alone, else to every cgroup but the top.
	hostTopMark() (file string, atTop bool)
	// cpusetFiles are the CPUs asked for, the CPUs in force (the asked
	// ones the parent has) and the memory nodes, which a v1 cpuset must
	// have before it takes a process.
	cpusetFiles() (cpus, effective, mems string)
	// cpusets finds where the cpusets of the cpu hierarchy cpu's slices live.
	cpusets(h Host, cpu Hierarchy) (Hierarchy, error)
	// accounting is the cgroup whose usage counts the processes of cg, the
	// process's own cgroup (Host.Accounting).
	accounting(h Host, cg Cgroup) (Cgroup, error)
	// topRefuses says why the top of hier lets no slice have cpu limits:
	// "" where it does.
	topRefuses(hier Hierarchy) string
	// threads lists the threads in c; pressure reads its CPU pressure,
	// ok false where the kernel keeps none for a cgroup (waits_linux.go).
	threads(c Cgroup) ([]int, error)
	pressure(c Cgroup) (p Pressure, ok bool, err error)
	// weightFile is the file of a cgroup's CPU weight and its value on
	// v2's scale (cpu.weight: 1 to 10000, 100 the default).
	weightFile() (name string, toV2 func(uint64) int)
}

// limitFile is one CFS bandwidth file and what it sets.
type limitFile struct {
	name string
	set  func(*Limits, []byte) error
}

// micros sets the duration field picks of a Limits from a file of
// microseconds.
func micros(pick func(*Limits) *time.Duration) func(*Limits, []byte) error {
	return func(l *Limits, b []byte) (err error) { *pick(l), err = parseMicros(b); return }
}

// version is the hierarchy's: v2 for cgroup2, v1 otherwise.
func (hier Hierarchy) version() version {
	if hier.Version == 2 {
		return v2{}
	}
	return v1{}
}

// readUsage reads c's usage counter, as the version names and parses it.
func readUsage(c Cgroup, v version) (time.Duration, error) {
	name := v.usageFile()
	data, err := c.cgroupfs().readFile(filepath.Join(c.Dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("%w: no %s in %s", ErrNoUsage, name, c.Dir)
	}
	if err != nil {
		return 0, err
	}
	return v.parseUsage(data)
}
