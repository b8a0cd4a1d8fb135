//go:build linux

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/topology"
)

// Placement on the real kernel: --cpuset through the cpuset controller (v1:
// a twin of the slice in the cpuset hierarchy; v2: the slice's own
// cpuset.cpus), --pin and --one-per-core through each worker's affinity.

// placed is the part of a report these tests read.
type placed struct {
	Config struct {
		Cpuset     string `json:"cpuset"`
		Pin        bool   `json:"pin"`
		OnePerCore bool   `json:"one_per_core"`
	} `json:"config"`
	Cgroup struct {
		Mode          string  `json:"mode"`
		Dir           string  `json:"dir"`
		Cpuset        string  `json:"cpuset"`
		AllowedCPUs   string  `json:"allowed_cpus"`
		EffectiveCPUs float64 `json:"effective_cpus"`
	} `json:"cgroup"`
	Workers []struct {
		PinnedCPU *int `json:"pinned_cpu"`
		// Where each worker ran, sampled at its operations: absent from
		// builds without per-worker placement sampling.
		CPUs []int `json:"cpus"`
	} `json:"workers"`
	Model struct {
		Parallelism float64 `json:"parallelism"`
	} `json:"model"`
}

func placedRun(t *testing.T, args ...string) placed {
	t.Helper()
	o := tb(t, append([]string{"run", "--workload", "spin", "--units", "100", "--batch", "20", "--iterations", "2"}, args...)...)
	require.Equal(t, 0, o.code, "throttlebench %v failed: %s", args, o.stderr)
	var r placed
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r), o.stdout)
	return r
}

// ownCPUs are the CPUs this process may use; the tests need two.
func ownCPUs(t *testing.T) []int {
	t.Helper()
	cpus, err := topology.Affinity()
	require.NoError(t, err)
	if len(cpus) < 2 {
		skipOrFail(t, "placement tests need 2 CPUs, this process may use "+cpulist.Format(cpus))
	}
	return cpus
}

// cpusets is where cpusets live beside hier.
func cpusets(t testing.TB, hier cgroup.Hierarchy) cgroup.Hierarchy {
	t.Helper()
	cs, err := cgroup.Host{Root: "/"}.CpusetHierarchy(hier)
	if err != nil {
		skipOrFail(t, "no cpuset controller: "+err.Error())
	}
	return cs
}

// cpusetParent is a test parent (testParent) whose slices may have
// cpusets (offerCpuset). At the end its twin goes, and a slice's twin left
// in it is an error.
func cpusetParent(t *testing.T, hier cgroup.Hierarchy) string {
	t.Helper()
	parent := testParent(t, hier)
	made := offerCpuset(t, hier, parent)
	if len(made) == 0 {
		return parent
	}
	twin := made[len(made)-1]
	t.Cleanup(func() {
		left := subdirs(t, twin)
		for _, d := range left {
			killCgroup(d)
			os.Remove(d)
		}
		for _, d := range slices.Backward(made) {
			os.Remove(d) // the default parent's twin only once empty, as after a run
		}
		if len(left) > 0 {
			t.Errorf("cpuset twins left behind under %s: %v", twin, left)
		}
	})
	return parent
}

// offerCpuset sets parent up as an administrator would, not by the code
// under test, so that its slices may have cpusets: on v1 its twin in the
// cpuset hierarchy, with the top's CPUs and memory nodes; on v2 +cpuset
// enabled down to it. It returns the directories it made (on v1: the
// default parent's twin where it was missing, then the parent's twin), for
// the caller to remove last first.
func offerCpuset(t testing.TB, hier cgroup.Hierarchy, parent string) []string {
	t.Helper()
	cs := cpusets(t, hier)
	if hier.Version == 2 {
		for _, d := range []string{hier.DefaultParent(), parent} {
			require.NoError(t, os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), []byte("+cpuset"), 0), "enable +cpuset in %s", d)
		}
		return nil
	}
	if !hier.Separate(cs) {
		t.Skip("cpu and cpuset share one v1 hierarchy here: the twin is the slice itself")
	}
	// The parent is fresh, so is its twin; the default parent's twin may
	// be there already (a run, another test).
	twin := hier.TwinDir(cs, parent)
	var made []string
	for _, d := range []string{filepath.Dir(twin), twin} {
		err := os.Mkdir(d, 0o755)
		if d == twin || err == nil {
			require.NoError(t, err)
			made = append(made, d)
		} else {
			require.ErrorIs(t, err, os.ErrExist)
		}
		for _, f := range []string{"cpuset.mems", "cpuset.cpus"} {
			if cur, _ := os.ReadFile(filepath.Join(d, f)); strings.TrimSpace(string(cur)) == "" {
				top, err := os.ReadFile(filepath.Join(filepath.Dir(d), f))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(d, f), bytes.TrimSpace(top), 0), "write %s", filepath.Join(d, f))
			}
		}
	}
	return made
}

// twinOf is a slice's twin in v1's own cpuset hierarchy; the slice itself
// where there is none.
func twinOf(t *testing.T, hier cgroup.Hierarchy, slice string) string {
	return hier.TwinDir(cpusets(t, hier), slice)
}

// A run with --cpuset writes the CPUs and reads them back as the kernel
// took them; its workers run on them alone, an unlimited quota on one CPU
// is one effective CPU, and neither the slice nor its twin is left.
func TestCpusetWrittenAndReadBack(t *testing.T) {
	hier := needRoot(t)
	cpu := ownCPUs(t)[1]
	want := strconv.Itoa(cpu)
	parent := cpusetParent(t, hier)
	r := placedRun(t, "--cgroup", "create", "--parent", parent, "--cpuset", want, "--workers", "2")

	assert.Equal(t, "created", r.Cgroup.Mode)
	assert.Equal(t, want, r.Config.Cpuset)
	assert.Equal(t, want, r.Cgroup.Cpuset, "read back from the kernel")
	assert.Equal(t, want, r.Cgroup.AllowedCPUs, "the workload process's own affinity")
	assert.Equal(t, 1.0, r.Cgroup.EffectiveCPUs)
	assert.Equal(t, 1.0, r.Model.Parallelism)
	require.Len(t, r.Workers, 2)
	for i, w := range r.Workers {
		assert.Nil(t, w.PinnedCPU)
		for _, c := range w.CPUs {
			assert.Equal(t, cpu, c, "worker %d ran on CPU %d", i, c)
		}
	}
	assert.NoDirExists(t, r.Cgroup.Dir)
	assert.NoDirExists(t, twinOf(t, hier, r.Cgroup.Dir))
}

// In throttlebench's own default parent it sets the cpuset up itself: on
// v1 the default parent's twin, on v2 +cpuset in the default parent.
func TestCpusetInTheDefaultParent(t *testing.T) {
	hier := needRoot(t)
	cs := cpusets(t, hier)
	cpu := ownCPUs(t)[0]
	r := placedRun(t, "--cgroup", "create", "--cpuset", strconv.Itoa(cpu))
	assert.Equal(t, strconv.Itoa(cpu), r.Cgroup.Cpuset)
	assert.Equal(t, hier.DefaultParent(), filepath.Dir(r.Cgroup.Dir))
	assert.NoDirExists(t, r.Cgroup.Dir)
	assert.NoDirExists(t, hier.TwinDir(cs, r.Cgroup.Dir))
}

// A parent the user names must offer the cpuset controller already: on v1
// its twin, on v2 +cpuset. Refused with exit 2, and nothing is created in
// either hierarchy.
func TestCpusetNeedsItInANamedParent(t *testing.T) {
	hier := needRoot(t)
	cs := cpusets(t, hier)
	parent := testParent(t, hier)
	o := tb(t, "run", "--cgroup", "create", "--parent", parent, "--cpuset", strconv.Itoa(ownCPUs(t)[0]), "--batch", "1", "--iterations", "1")
	assert.Equal(t, 2, o.code, o.stderr)
	assert.Contains(t, o.stderr, "--cpuset needs")
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(o.stderr), "\n")+1, "one line: %s", o.stderr)
	assert.Empty(t, subdirs(t, parent))
	if hier.Separate(cs) {
		assert.NoDirExists(t, hier.TwinDir(cs, parent), "the user's twin is never made")
	}
}

// On v1 a named parent's twin with memory nodes but no CPUs can give its
// slices none: --cpuset is refused (exit 2) before anything is made.
func TestCpusetNamedTwinWithoutCPUs(t *testing.T) {
	hier := needRoot(t)
	cs := cpusets(t, hier)
	if hier.Version != 1 || !hier.Separate(cs) {
		t.Skip("a twin in a cpuset hierarchy of its own is cgroup v1's")
	}
	parent := cpusetParent(t, hier)
	twin := hier.TwinDir(cs, parent)
	writeFile(t, filepath.Join(twin, "cpuset.cpus"), "\n")
	data, err := os.ReadFile(filepath.Join(twin, "cpuset.cpus"))
	require.NoError(t, err)
	require.Empty(t, strings.TrimSpace(string(data)), "the kernel took the empty list")
	o := tb(t, "run", "--cgroup", "create", "--parent", parent, "--cpuset", strconv.Itoa(ownCPUs(t)[0]), "--batch", "1", "--iterations", "1")
	assert.Equal(t, 2, o.code, o.stderr)
	assert.Contains(t, o.stderr, "has no CPUs")
	assert.Empty(t, subdirs(t, parent), "nothing created")
	assert.Empty(t, subdirs(t, twin), "nothing created")
}

// On v2, --cpuset in the default parent needs the top to enable cpuset
// for its children, which throttlebench does not write: where it does
// not, the run is refused (exit 2) and nothing is made, the default parent
// included. The VM's top enables it, so the test takes it away for a
// moment, where nothing below uses it.
//
// Two things would stop it: the default parent already there (it must be
// absent to show that nothing is made), and a cgroup below the top with
// cpuset enabled for its own children (the kernel then refuses -cpuset
// with EBUSY). Off CI that is someone's run or cgroups of their own, and
// the test skips; in CI, where the suite runs alone (the VM's guest), only
// a test before this one can have left them, and that is a failure naming
// what was left, not a check turned off.
func TestCpusetDefaultParentNeedsTheTop(t *testing.T) {
	hier := needRoot(t)
	if hier.Version != 2 {
		t.Skip("cgroup.subtree_control is cgroup v2's (runs in the test VM)")
	}
	cpusets(t, hier)
	if isDir(hier.DefaultParent()) {
		skipOrFail(t, fmt.Sprintf("the default parent %s is there (holding %v): the top's cpuset cannot be taken away",
			hier.DefaultParent(), subdirs(t, hier.DefaultParent())))
	}
	top := filepath.Join(hier.MountPoint, "cgroup.subtree_control")
	had, err := os.ReadFile(top)
	require.NoError(t, err)
	if slices.Contains(strings.Fields(string(had)), "cpuset") {
		if err := os.WriteFile(top, []byte("-cpuset"), 0); err != nil {
			skipOrFail(t, fmt.Sprintf("cannot take cpuset from %s: %v; cgroups below the top that enable it for their children: %v",
				top, err, usingCpuset(hier.MountPoint)))
		}
		t.Cleanup(func() { writeFile(t, top, "+cpuset") })
	}
	o := tb(t, "run", "--cgroup", "create", "--cpuset", strconv.Itoa(ownCPUs(t)[0]), "--batch", "1", "--iterations", "1")
	assert.Equal(t, 2, o.code, o.stderr)
	assert.Contains(t, o.stderr, "echo +cpuset > "+top)
	assert.NoDirExists(t, hier.DefaultParent(), "nothing created, not the default parent")
}

// usingCpuset lists the cgroups under top whose cgroup.subtree_control
// enables cpuset: those that keep the kernel from taking it from top.
func usingCpuset(top string) []string {
	var found []string
	filepath.WalkDir(top, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == top {
			return nil
		}
		data, _ := os.ReadFile(filepath.Join(path, "cgroup.subtree_control"))
		if slices.Contains(strings.Fields(string(data)), "cpuset") {
			found = append(found, path)
		}
		return nil
	})
	return found
}

// --pin: worker i on the i-th CPU this process may use, round again past
// the last; within a cpuset, on its CPUs.
func TestPinWorkers(t *testing.T) {
	hier := needRoot(t)
	own := ownCPUs(t)
	parent := cpusetParent(t, hier)
	r := placedRun(t, "--cgroup", "create", "--parent", parent, "--pin", "--workers", "2")
	assert.True(t, r.Config.Pin)
	assert.Equal(t, cpulist.Format(own), r.Cgroup.AllowedCPUs)
	require.Len(t, r.Workers, 2)
	for i, w := range r.Workers {
		require.NotNil(t, w.PinnedCPU, "worker %d", i)
		assert.Equal(t, own[i], *w.PinnedCPU, "worker %d", i)
		for _, c := range w.CPUs {
			assert.Equal(t, own[i], c, "worker %d ran on CPU %d", i, c)
		}
	}

	r = placedRun(t, "--cgroup", "create", "--parent", parent, "--pin", "--workers", "3", "--cpuset", strconv.Itoa(own[1]))
	require.Len(t, r.Workers, 3)
	for i, w := range r.Workers {
		require.NotNil(t, w.PinnedCPU)
		assert.Equal(t, own[1], *w.PinnedCPU, "worker %d", i)
	}
	assert.Equal(t, 1.0, r.Model.Parallelism)
}

// --one-per-core keeps one SMT sibling of each core the process may use, in
// a created slice and in the current cgroup alike.
func TestOnePerCore(t *testing.T) {
	hier := needRoot(t)
	own := ownCPUs(t)
	layout, err := topology.Read("/")
	require.NoError(t, err)
	want := cpulist.Format(layout.OnePerCore(own))
	t.Logf("CPUs %s, one per core %s", cpulist.Format(own), want)

	r := placedRun(t, "--cgroup", "create", "--parent", testParent(t, hier), "--one-per-core", "--workers", "2")
	assert.True(t, r.Config.OnePerCore)
	assert.Equal(t, want, r.Cgroup.AllowedCPUs)
	// Read apart from the topology package: no two of them siblings, and
	// every CPU of ours a sibling of one of them.
	allowed, err := cpulist.Parse(r.Cgroup.AllowedCPUs)
	require.NoError(t, err)
	covered := map[int]bool{}
	for _, c := range allowed {
		data, err := os.ReadFile("/sys/devices/system/cpu/cpu" + strconv.Itoa(c) + "/topology/thread_siblings_list")
		siblings := []int{c}
		if err == nil {
			siblings, err = cpulist.Parse(string(data))
			require.NoError(t, err)
		}
		for _, sib := range siblings {
			assert.False(t, sib != c && slices.Contains(allowed, sib), "CPUs %d and %d are siblings", c, sib)
			covered[sib] = true
		}
	}
	for _, c := range own {
		assert.True(t, covered[c], "no CPU of CPU %d's core kept", c)
	}
	r = placedRun(t, "--cgroup", "current", "--one-per-core", "--pin", "--workers", "2")
	assert.Equal(t, want, r.Cgroup.AllowedCPUs)
	require.NotNil(t, r.Workers[0].PinnedCPU)
	assert.Equal(t, layout.OnePerCore(own)[0], *r.Workers[0].PinnedCPU)
}

// A run with --cpuset killed by SIGKILL leaves its slice and its twin;
// cleanup removes both.
func TestCpusetParentKilledThenCleanup(t *testing.T) {
	hier := needRoot(t)
	parent := cpusetParent(t, hier)
	cmd, _, slice, child := startLongRun(t, parent, "--cpuset", strconv.Itoa(ownCPUs(t)[0]))
	twin := twinOf(t, hier, slice)
	require.DirExists(t, twin)
	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()
	waitGone(t, child, "workload child of a SIGKILLed parent")

	o := tb(t, "cleanup", "--parent", parent)
	assert.Equal(t, 0, o.code, o.stderr)
	assert.Contains(t, o.stdout, "removed "+slice)
	if twin != slice {
		assert.Contains(t, o.stdout, "removed "+twin)
	}
	assert.NoDirExists(t, slice)
	assert.NoDirExists(t, twin)
}
