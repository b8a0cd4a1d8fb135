//go:build linux

package cgroup

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
)

// Pressure is a cgroup's CPU pressure totals (cgroup v2's cpu.pressure):
// the time at least one of its threads (Some), and all of them (Full),
// were runnable but not running. The kernel counts a thread held by the
// quota as waiting too, so over a window it covers throttling as well as
// waiting for CPUs others hold. FullOK says the kernel keeps full for the
// cgroup: cgroups' cpu.pressure has had its full line since Linux 5.13,
// some alone before.
type Pressure struct {
	Some, Full time.Duration
	FullOK     bool
}

// Threads lists the threads in c (v2 cgroup.threads, v1 tasks), through
// containerd/cgroups, which reads them for its own managers.
func (c Cgroup) Threads() ([]int, error) { return c.version().threads(c) }

// Pressure reads c's CPU pressure; ok is false where the kernel keeps
// none for a cgroup (v1; the top cgroup, whose pressure is the machine's,
// /proc/pressure/cpu; a v2 kernel built without PSI or booted psi=0, where
// cpu.pressure is absent or reading it fails with EOPNOTSUPP), which is no
// error.
func (c Cgroup) Pressure() (p Pressure, ok bool, err error) { return c.version().pressure(c) }

// group is c's path below its hierarchy's mount point, as the library's
// Load takes it.
func (c Cgroup) group() (string, error) {
	rel, err := filepath.Rel(c.MountPoint, c.Dir)
	if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
		return "", fmt.Errorf("%s is not below %s", c.Dir, c.MountPoint)
	}
	return filepath.Join("/", rel), nil
}

func (v2) threads(c Cgroup) ([]int, error) {
	m, err := c.v2Manager()
	if err != nil {
		return nil, err
	}
	tids, err := m.Threads(false)
	out := make([]int, len(tids))
	for i, t := range tids {
		out[i] = int(t)
	}
	return out, err
}

func (v2) pressure(c Cgroup) (Pressure, bool, error) {
	m, err := c.v2Manager()
	if err != nil {
		return Pressure{}, false, err
	}
	st, err := m.StatFiltered(cgroup2.StatCPU)
	if err != nil {
		return Pressure{}, false, err
	}
	// The library reads cpu.pressure beside cpu.stat, and gives no PSI
	// where the file is absent, unreadable (EOPNOTSUPP where PSI is off)
	// or malformed.
	psi := st.GetCPU().GetPSI()
	if psi.GetSome() == nil {
		return Pressure{}, false, nil
	}
	us := func(total uint64) time.Duration { return time.Duration(total) * time.Microsecond }
	p := Pressure{Some: us(psi.GetSome().GetTotal())}
	if full := psi.GetFull(); full != nil {
		p.Full, p.FullOK = us(full.GetTotal()), true
	}
	return p, true, nil
}

func (c Cgroup) v2Manager() (*cgroup2.Manager, error) {
	g, err := c.group()
	if err != nil {
		return nil, err
	}
	return cgroup2.Load(g, cgroup2.WithMountpoint(c.MountPoint))
}

func (v1) threads(c Cgroup) ([]int, error) {
	g, err := c.group()
	if err != nil {
		return nil, err
	}
	hier, path := v1Group(g, []v1Mount{{cgroup1.Cpu, c.MountPoint}})
	cg, err := cgroup1.Load(path, cgroup1.WithHierarchy(hier))
	if err != nil {
		return nil, err
	}
	tasks, err := cg.Tasks(cgroup1.Cpu, false)
	out := make([]int, len(tasks))
	for i, t := range tasks {
		out[i] = t.Pid
	}
	return out, err
}

// pressure: a v1 cgroup has none (psi's cgroup files are v2's).
func (v1) pressure(Cgroup) (Pressure, bool, error) { return Pressure{}, false, nil }
