package topology

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/cpulist"
)

// ErrParse is wrapped by every error about a malformed sysfs file: the
// list parser's own, which a malformed list file wraps too.
var ErrParse = cpulist.ErrParse

// CPU is one online logical CPU.
type CPU struct {
	ID      int `json:"id"`
	Core    int `json:"core"`    // index into Topology.Cores
	Package int `json:"package"` // physical_package_id; -1 where the kernel does not say
	Node    int `json:"node"`    // NUMA node; -1 where there is none
}

// Core is one physical core: its online hardware threads.
type Core struct {
	Package int   `json:"package"`
	Threads []int `json:"threads"` // online CPU ids, ascending
}

// Topology is the layout of the online CPUs.
type Topology struct {
	Online  []int  `json:"online"`
	Offline []int  `json:"offline"`
	CPUs    []CPU  `json:"cpus"` // online CPUs, by id
	Cores   []Core `json:"cores"`
	// Packages and Nodes are the distinct package ids and NUMA nodes of the
	// online CPUs (Nodes empty on a kernel without NUMA).
	Packages []int `json:"packages"`
	Nodes    []int `json:"nodes"`
}

// SysDir is where the CPUs are described, below a filesystem root.
const SysDir = "sys/devices/system/cpu"

// Read reads the layout below root ("/" on the machine itself).
func Read(root string) (*Topology, error) {
	dir := filepath.Join(root, SysDir)
	online, err := readList(filepath.Join(dir, "online"))
	if err != nil {
		return nil, err
	}
	t := &Topology{Online: online}
	// "offline" is absent on kernels without CPU hotplug: none then.
	if off, err := readList(filepath.Join(dir, "offline")); err == nil {
		t.Offline = off
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	nodeOf, err := readNodes(root)
	if err != nil {
		return nil, err
	}

	coreOf := map[string]int{} // the sibling list, which names a core uniquely
	for _, id := range online {
		top := filepath.Join(dir, fmt.Sprintf("cpu%d", id), "topology")
		pkg := -1
		if v, err := readInt(filepath.Join(top, "physical_package_id")); err == nil {
			pkg = v
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		// Without a topology directory (some VMs, UP kernels) a CPU is its
		// own core. The sibling list holds online siblings only.
		siblings := []int{id}
		if s, err := readList(filepath.Join(top, "thread_siblings_list")); err == nil {
			siblings = s
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if !slices.Contains(siblings, id) {
			return nil, fmt.Errorf("%w %s: cpu%d is not among its own siblings %v", ErrParse, top, id, siblings)
		}
		key := cpulist.Format(siblings)
		core, ok := coreOf[key]
		if !ok {
			core = len(t.Cores)
			coreOf[key] = core
			t.Cores = append(t.Cores, Core{Package: pkg})
		}
		t.Cores[core].Threads = append(t.Cores[core].Threads, id)
		node := -1
		if n, ok := nodeOf[id]; ok {
			node = n
		}
		t.CPUs = append(t.CPUs, CPU{ID: id, Core: core, Package: pkg, Node: node})
		if !slices.Contains(t.Packages, pkg) && pkg >= 0 {
			t.Packages = append(t.Packages, pkg)
		}
		if node >= 0 && !slices.Contains(t.Nodes, node) {
			t.Nodes = append(t.Nodes, node)
		}
	}
	slices.Sort(t.Packages)
	slices.Sort(t.Nodes)
	return t, nil
}

var nodeDirRE = regexp.MustCompile(`^node(\d+)$`)

// readNodes maps each CPU to its NUMA node, from the nodes' cpulists;
// empty where the kernel has no NUMA.
func readNodes(root string) (map[int]int, error) {
	dir := filepath.Join(root, "sys/devices/system/node")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return map[int]int{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for _, e := range entries {
		m := nodeDirRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		node, _ := strconv.Atoi(m[1])
		cpus, err := readList(filepath.Join(dir, e.Name(), "cpulist"))
		if err != nil {
			return nil, err
		}
		for _, c := range cpus {
			out[c] = node
		}
	}
	return out, nil
}

// SMT says whether any core runs more than one online thread.
func (t *Topology) SMT() bool { return t.ThreadsPerCore() > 1 }

// ThreadsPerCore is the most online threads any core has.
func (t *Topology) ThreadsPerCore() int {
	n := 0
	for _, c := range t.Cores {
		n = max(n, len(c.Threads))
	}
	return n
}

// OnePerCore keeps, of the CPUs in allowed, the lowest-numbered of each
// core's threads: one hardware thread per core, the effect of taking the
// SMT siblings offline without taking any offline. CPUs the layout does not
// know (offline ones) are dropped.
func (t *Topology) OnePerCore(allowed []int) []int {
	coreOf := map[int]int{}
	for _, c := range t.CPUs {
		coreOf[c.ID] = c.Core
	}
	sorted := slices.Clone(allowed)
	slices.Sort(sorted)
	seen := map[int]bool{}
	var out []int
	for _, id := range slices.Compact(sorted) {
		core, ok := coreOf[id]
		if !ok || seen[core] {
			continue
		}
		seen[core] = true
		out = append(out, id)
	}
	return out
}

// CoresOf counts the distinct cores the given CPUs belong to.
func (t *Topology) CoresOf(cpus []int) int { return len(t.OnePerCore(cpus)) }

func readList(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := cpulist.Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("%w %s: %q is not an integer", ErrParse, path, strings.TrimSpace(string(b)))
	}
	return v, nil
}
