//go:build linux

// Package kubetest runs what `sweep --emit kubernetes` writes on a real
// single-node Kubernetes cluster: upstream kube-apiserver, controller-manager,
// scheduler and kubelet on containerd and runc, which test/kube/run.sh starts
// on this host (node.sh) and takes down afterwards. It reads each pod's
// cgroups and processes from the host while the pod measures, and the results
// back through kubectl logs and collect.
package kubetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/testenv"
)

// The sweep: three limits, each below the two workers' demand, so that the
// quota binds in every configuration. --batch 30 keeps an iteration's CPU
// (about 60 ms) above 0.25 CPUs' 25 ms quota per period, and --min-time 4s
// keeps each pod measuring long enough to be read from the host while it
// runs. The read comes once the API says Running, which waits on the
// kubelet's relist (1 s): beside a busy loop pinned to each CPU, 48 reads
// (30 runs of TestPodLevelLimit, 3 of TestEmittedSweepOnARealNode) came
// 0.39 to 1.26 s after the container's process started, median 0.91 s,
// against at least 4 s of measuring after its warm-up: a read would need
// three times the slowest seen to miss it. The v2 node reads its pods
// without waiting for the API (whileRunning says why and how).
var (
	limits    = []int64{250, 500, 1000} // millicores, as the pods ask
	sweepArgs = []string{"sweep", "--cpus", "0.25,0.5,1", "--workers", "2", "--batch", "30",
		"--iterations", "5", "--min-time", "4s", "--ttl", "0", "--job-deadline", "5m", "--emit", "kubernetes"}
)

// cfsPeriod is the kubelet's cpuCFSQuotaPeriod, left at its default.
const cfsPeriod = 100000

type cluster struct {
	kubectl, kubeconfig, node, bin string
}

func newCluster(t *testing.T) cluster {
	c := cluster{os.Getenv("TB_KUBECTL"), os.Getenv("TB_KUBECONFIG"), os.Getenv("TB_KUBE_NODE"), os.Getenv("THROTTLEBENCH_BIN")}
	if c.kubectl == "" || c.kubeconfig == "" || c.node == "" || c.bin == "" {
		testenv.SkipOrFail(t, "no cluster: test/kube/run.sh (make test-kube) starts one and sets TB_KUBECTL, TB_KUBECONFIG, TB_KUBE_NODE and THROTTLEBENCH_BIN")
	}
	testenv.NeedRoot(t, "to read the pods' cgroups and processes on the host")
	return c
}

// run runs a command; it returns stdout, stderr and the exit code.
func run(t *testing.T, name string, args ...string) (string, string, int) {
	t.Helper()
	return testenv.Run(t, exec.Command(name, args...))
}

func (c cluster) k(t *testing.T, args ...string) string {
	t.Helper()
	out, errb, code := run(t, c.kubectl, append([]string{"--kubeconfig", c.kubeconfig}, args...)...)
	require.Zero(t, code, "kubectl %s: %s", strings.Join(args, " "), errb)
	return out
}

// tb runs the host's throttlebench and requires the exit code want.
func (c cluster) tb(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	out, errb, code := run(t, c.bin, args...)
	require.Equal(t, want, code, "throttlebench %s: %s", strings.Join(args, " "), errb)
	return out, errb
}

// pods lists the pods a selector picks.
func (c cluster) pods(t *testing.T, selector string) []corev1.Pod {
	t.Helper()
	var l corev1.PodList
	require.NoError(t, json.Unmarshal([]byte(c.k(t, "get", "pods", "-l", selector, "-o", "json")), &l))
	return l.Items
}

// until polls cond every 100 ms: the cluster's state changes by events this
// test cannot subscribe to without a client library; the bound is only
// against a node that never gets there.
func until(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %s", what, limit)
		}
	}
}

// fresh deletes the Jobs, and their pods, of the sweeps named, left by an
// earlier run of the test on the same cluster (go test -count): a Job
// applied again unchanged would start no pod.
func (c cluster) fresh(t *testing.T, sweeps ...string) {
	t.Helper()
	c.k(t, "delete", "jobs", "-l", "throttlebench/sweep in ("+strings.Join(sweeps, ",")+")",
		"--cascade=foreground", "--wait", "--timeout=2m")
}

// runningPod waits for the pod a selector picks to run its container, and
// fails where it ended first: the host reads it while it measures.
func (c cluster) runningPod(t *testing.T, selector string) corev1.Pod {
	t.Helper()
	var running corev1.Pod
	until(t, "a running pod of "+selector, 2*time.Minute, func() bool {
		for _, p := range c.pods(t, selector) {
			for _, s := range p.Status.ContainerStatuses {
				require.Nil(t, s.State.Terminated, "%s ended before the host could read it", p.Name)
				if s.State.Running != nil {
					running = p
					return true
				}
			}
		}
		return false
	})
	return running
}

// onHost is what the host shows of one running pod: its cgroup version,
// both quotas and periods (µs), and the container's cpu.shares (v1) or
// cpu.weight (v2).
type onHost struct {
	version                                                        int
	podQuota, podPeriod, ctrQuota, ctrPeriod, ctrShares, ctrWeight int64
	procs                                                          []proc
}

// proc is what /proc shows of one of the container's processes.
type proc struct {
	pid                                   string
	uid, gid, noNewPrivs, capEff, seccomp string
	rootOptions                           string // the mount options of its /
	// age is how long it had run when it was read: the margin of the
	// read against the run's length (--min-time and the warm-up).
	age time.Duration
}

// readHost reads a running pod's cgroups and its container's processes.
// On v1 (the kubelet's cgroupfs driver) a Guaranteed pod's cgroup is
// kubepods/pod<UID> under the cpu controller, its container's below it,
// named by the container's ID.
func readHost(t *testing.T, p corev1.Pod) onHost {
	t.Helper()
	require.Len(t, p.Status.ContainerStatuses, 1)
	id := strings.TrimPrefix(p.Status.ContainerStatuses[0].ContainerID, "containerd://")
	pod := filepath.Join("/sys/fs/cgroup/cpu/kubepods", "pod"+string(p.UID))
	ctr := filepath.Join(pod, id)
	h := onHost{version: 1,
		podQuota: readInt(t, pod, "cpu.cfs_quota_us"), podPeriod: readInt(t, pod, "cpu.cfs_period_us"),
		ctrQuota: readInt(t, ctr, "cpu.cfs_quota_us"), ctrPeriod: readInt(t, ctr, "cpu.cfs_period_us"),
		ctrShares: readInt(t, ctr, "cpu.shares"),
	}
	h.procs = readProcs(t, ctr)
	return h
}

// readScope reads the same on v2 (the systemd driver): the container is
// the scope ctr, cri-containerd-<ID>.scope, in its pod's slice, and the
// limits are cpu.max and cpu.weight.
func readScope(t *testing.T, ctr string) onHost {
	t.Helper()
	h := onHost{version: 2}
	h.podQuota, h.podPeriod = readMax(t, filepath.Dir(ctr))
	h.ctrQuota, h.ctrPeriod = readMax(t, ctr)
	h.ctrWeight = readInt(t, ctr, "cpu.weight")
	h.procs = readProcs(t, ctr)
	return h
}

func readProcs(t *testing.T, ctr string) []proc {
	t.Helper()
	pids, err := os.ReadFile(filepath.Join(ctr, "cgroup.procs"))
	require.NoError(t, err)
	var procs []proc
	for _, pid := range strings.Fields(string(pids)) {
		procs = append(procs, readProc(t, pid))
	}
	require.NotEmpty(t, procs, "no process in %s", ctr)
	return procs
}

// whileRunning reads the pod a selector picks while its container runs.
// On v1 once the API says Running. On v2 the checks run on the node itself
// (the guest), whose kubelet and kubectl, emulated, told of a running pod
// late (1.3 to 5.3 s after the container's start, against 4 s of
// measuring): there the scope of the one throttlebench that runs under
// kubepods.slice (the checks run one pod at a time) is read as soon as it
// appears, polled every 20 ms without the API, and then checked to be the
// container the API names, in the slice of the pod it names.
func (c cluster) whileRunning(t *testing.T, selector string) (corev1.Pod, onHost) {
	t.Helper()
	if cgroupVersion(t) == 1 {
		p := c.runningPod(t, selector)
		return p, readHost(t, p)
	}
	var ctr string
	for end := time.Now().Add(2 * time.Minute); ctr == ""; time.Sleep(20 * time.Millisecond) {
		require.False(t, time.Now().After(end), "no throttlebench in a container's scope below kubepods.slice within 2m (%s)", selector)
		ctr = runningScope()
	}
	h := readScope(t, ctr)
	var p corev1.Pod
	until(t, "the container ID of a pod of "+selector, 2*time.Minute, func() bool {
		pods := c.pods(t, selector)
		if len(pods) == 1 && len(pods[0].Status.ContainerStatuses) == 1 && pods[0].Status.ContainerStatuses[0].ContainerID != "" {
			p = pods[0]
			return true
		}
		return false
	})
	id := strings.TrimPrefix(p.Status.ContainerStatuses[0].ContainerID, "containerd://")
	require.Equal(t, "cri-containerd-"+id+".scope", filepath.Base(ctr), "the scope read is not pod %s's container", p.Name)
	require.Contains(t, filepath.Base(filepath.Dir(ctr)), "pod"+strings.ReplaceAll(string(p.UID), "-", "_"), "%s is not in pod %s's slice", ctr, p.Name)
	return p, h
}

// runningScope is the container scope below kubepods.slice that holds a
// throttlebench process; "" where none does yet. A Guaranteed pod's slice
// is in kubepods.slice, another's one level down
// (kubepods-burstable.slice).
func runningScope() string {
	for _, pattern := range []string{"/sys/fs/cgroup/kubepods.slice/*pod*.slice/cri-containerd-*.scope",
		"/sys/fs/cgroup/kubepods.slice/*/*pod*.slice/cri-containerd-*.scope"} {
		scopes, _ := filepath.Glob(pattern)
		for _, scope := range scopes {
			pids, _ := os.ReadFile(filepath.Join(scope, "cgroup.procs"))
			for _, pid := range strings.Fields(string(pids)) {
				if comm, _ := os.ReadFile(filepath.Join("/proc", pid, "comm")); strings.TrimSpace(string(comm)) == "throttlebench" {
					return scope
				}
			}
		}
	}
	return ""
}

// cgroupVersion is the node's: 2 where /sys/fs/cgroup is cgroup2 alone.
func cgroupVersion(t *testing.T) int {
	t.Helper()
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs("/sys/fs/cgroup", &st))
	if st.Type == unix.CGROUP2_SUPER_MAGIC {
		return 2
	}
	return 1
}

// readMax reads cpu.max: the quota ("max": -1, as v1 writes none) and the
// period, in µs.
func readMax(t *testing.T, dir string) (quota, period int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	require.NoError(t, err)
	f := strings.Fields(string(b))
	require.Len(t, f, 2, "%s/cpu.max: %q", dir, b)
	quota = -1
	if f[0] != "max" {
		quota, err = strconv.ParseInt(f[0], 10, 64)
		require.NoError(t, err)
	}
	period, err = strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return quota, period
}

func readInt(t *testing.T, dir, file string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	require.NoError(t, err)
	return v
}

func readProc(t *testing.T, pid string) proc {
	t.Helper()
	status, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	require.NoError(t, err)
	p := proc{pid: pid}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.Join(strings.Fields(v), " ")
		switch k {
		case "Uid":
			p.uid = v
		case "Gid":
			p.gid = v
		case "NoNewPrivs":
			p.noNewPrivs = v
		case "CapEff":
			p.capEff = v
		case "Seccomp":
			p.seccomp = v
		}
	}
	p.age = age(t, pid)
	mounts, err := os.ReadFile(filepath.Join("/proc", pid, "mountinfo"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(line); len(f) > 5 && f[4] == "/" {
			p.rootOptions = f[5]
		}
	}
	return p
}

// age is how long a process has run: now (/proc/uptime) less its start
// (field 22 of /proc/PID/stat, in clock ticks since boot: 100 a second on
// Linux, as the kernel exports USER_HZ).
func age(t *testing.T, pid string) time.Duration {
	t.Helper()
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	require.NoError(t, err)
	// The command name may hold spaces: the fields count from its ")".
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	require.Greater(t, len(f), 19)
	ticks, err := strconv.ParseFloat(f[19], 64)
	require.NoError(t, err)
	up, err := os.ReadFile("/proc/uptime")
	require.NoError(t, err)
	secs, err := strconv.ParseFloat(strings.Fields(string(up))[0], 64)
	require.NoError(t, err)
	return time.Duration((secs - ticks/100) * float64(time.Second))
}

// sweep emits a sweep's Jobs into dir, applies them one configuration at a
// time as the file's header says, reads each pod from the host while it
// runs, and waits for each Job to complete.
func (c cluster) sweep(t *testing.T, dir, id string, extra ...string) []onHost {
	t.Helper()
	file := filepath.Join(dir, id+".yaml")
	c.tb(t, 0, append(append(append([]string{}, sweepArgs...), "--sweep-id", id, "-o", file), extra...)...)
	var seen []onHost
	for i := range limits {
		sel := fmt.Sprintf("throttlebench/sweep=%s,throttlebench/config=%d", id, i)
		c.k(t, "apply", "-f", file, "-l", sel)
		running, h := c.whileRunning(t, sel)
		share := fmt.Sprintf("cpu.shares %d", h.ctrShares)
		if h.version == 2 {
			share = fmt.Sprintf("cpu.weight %d", h.ctrWeight)
		}
		t.Logf("%s: pod %s, cgroup v%d, quota/period: pod %d/%d, container %d/%d, the container's %s; %d processes, read %v after the container's start",
			sel, running.Name, h.version, h.podQuota, h.podPeriod, h.ctrQuota, h.ctrPeriod, share, len(h.procs), h.procs[0].age.Round(time.Millisecond))
		seen = append(seen, h)
		c.k(t, "wait", "job", "-l", sel, "--for=condition=Complete", "--timeout=2m")
	}
	return seen
}

// logs writes what kubectl logs prints for the pods of the sweeps named,
// as docs/cluster.md has users do it.
func (c cluster) logs(t *testing.T, dir, name string, sweeps ...string) string {
	t.Helper()
	out := c.k(t, "logs", "-l", "throttlebench/sweep in ("+strings.Join(sweeps, ",")+")",
		"--prefix", "--tail=-1", "--ignore-errors")
	file := filepath.Join(dir, name+".log")
	require.NoError(t, os.WriteFile(file, []byte(out), 0o644))
	return file
}

func readResults(t *testing.T, file string) []report.Report {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var rs []report.Report
	require.NoError(t, json.Unmarshal(b, &rs))
	return rs
}

// TestEmittedSweepOnARealNode: the Jobs run, each pod's cgroups carry the
// quota asked, its processes the security context asked, and collect reads
// the results back ("one sweep"); then compare, and a failed pod reported as
// failed ("a second sweep"). The v2 node (test/kube/v2.sh) runs the first
// alone: the second changes nothing between cgroup versions.
func TestEmittedSweepOnARealNode(t *testing.T) {
	c := newCluster(t)
	c.fresh(t, "a", "b", "bad")
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if !t.Run("one sweep", func(t *testing.T) { c.oneSweep(t, dir, a) }) {
		return
	}
	t.Run("a second sweep, a failed pod, compare", func(t *testing.T) { c.secondSweep(t, dir, a) })
}

// oneSweep: sweep a's Jobs, read on the host and collected into file a.
func (c cluster) oneSweep(t *testing.T, dir, a string) {
	seenA := c.sweep(t, dir, "a")
	for i, h := range seenA {
		want := limits[i] * cfsPeriod / 1000
		// What the kubelet wrote, read from the files: the container's
		// limit, and the pod's, the sum of its one container's.
		assert.Equal(t, int64(cfsPeriod), h.ctrPeriod, "container's period, %dm", limits[i])
		assert.Equal(t, want, h.ctrQuota, "container's quota, %dm", limits[i])
		assert.Equal(t, int64(cfsPeriod), h.podPeriod, "pod's period, %dm", limits[i])
		assert.Equal(t, want, h.podQuota, "pod's quota, %dm", limits[i])
		if h.version == 2 {
			// runc's conversion of the request's shares (× 1024) to
			// a weight, 1 to 10000.
			assert.Equal(t, 1+(limits[i]*1024/1000-2)*9999/262142, h.ctrWeight, "container's cpu.weight, %dm", limits[i])
		} else {
			assert.Equal(t, limits[i]*1024/1000, h.ctrShares, "container's cpu.shares (request × 1024), %dm", limits[i])
		}
		// The security context, as runc applied it: user and group 65534,
		// no new privileges, no capabilities, seccomp filtering
		// (RuntimeDefault), a read-only root.
		for _, p := range h.procs {
			assert.Equal(t, "65534 65534 65534 65534", p.uid, "pid %s's uids", p.pid)
			assert.Equal(t, "65534 65534 65534 65534", p.gid, "pid %s's gids", p.pid)
			assert.Equal(t, "1", p.noNewPrivs, "pid %s's NoNewPrivs", p.pid)
			assert.Equal(t, "0000000000000000", p.capEff, "pid %s's effective capabilities", p.pid)
			assert.Equal(t, "2", p.seccomp, "pid %s's seccomp mode (2: a filter)", p.pid)
			assert.Contains(t, strings.Split(p.rootOptions, ","), "ro", "pid %s's / mount options", p.pid)
		}
	}

	// collect: one result per configuration on the one node, nothing
	// missing (exit 0).
	_, summary := c.tb(t, 0, "collect", c.logs(t, dir, "a", "a"), "-o", a)
	t.Log(strings.TrimSpace(summary))
	assert.Contains(t, summary, "3 results from 3 pods")
	results := readResults(t, a)
	require.Len(t, results, len(limits))
	for i, r := range results {
		h := seenA[i]
		assert.Equal(t, c.node, r.Host.Node, "config %d's node", i)
		assert.Equal(t, "current", r.Cgroup.Mode)
		assert.Equal(t, h.version, r.Cgroup.Version)
		require.NotNil(t, r.Cgroup.PeriodUs)
		assert.Equal(t, h.ctrPeriod, *r.Cgroup.PeriodUs, "config %d's period as the pod read it", i)
		assert.Equal(t, h.ctrQuota, r.Cgroup.QuotaUs, "config %d's quota as the pod read it", i)
		// effective_cpus: the tighter of the pod's limit and the
		// container's, as the host read them (the CPUs, 2, are more).
		tight := min(float64(h.podQuota)/float64(h.podPeriod), float64(h.ctrQuota)/float64(h.ctrPeriod))
		assert.InDelta(t, tight, r.Cgroup.EffectiveCPUs, 1e-9, "config %d's effective_cpus", i)
		// Two spinning workers against at most one CPU: the quota binds,
		// and the kernel's counters say so.
		require.NotNil(t, r.Throttling.NrThrottled, "config %d's nr_throttled", i)
		require.NotNil(t, r.Throttling.ThrottledMs, "config %d's throttled_ms", i)
		assert.Positive(t, *r.Throttling.NrThrottled, "config %d's nr_throttled", i)
		assert.Positive(t, *r.Throttling.ThrottledMs, "config %d's throttled_ms", i)
	}

}

// secondSweep: a second sweep, and beside it a Job whose pod fails (its
// command is not in the image): collect writes the three results and lists
// the failed pod, exit 1; compare pairs them with file a's.
func (c cluster) secondSweep(t *testing.T, dir, a string) {
	c.sweep(t, dir, "b")
	bad := filepath.Join(dir, "bad.yaml")
	c.tb(t, 0, "sweep", "--cpus", "0.5", "--sweep-id", "bad", "--ttl", "0", "--image", "throttlebench:dev",
		"--emit", "kubernetes", "-o", bad, "--", "/not-in-the-image")
	c.k(t, "apply", "-f", bad)
	c.k(t, "wait", "job", "-l", "throttlebench/sweep=bad", "--for=condition=Failed", "--timeout=2m")
	pods := c.pods(t, "throttlebench/sweep=bad")
	require.Len(t, pods, 1)
	assert.Equal(t, corev1.PodFailed, pods[0].Status.Phase)
	b := filepath.Join(dir, "b.json")
	_, summary := c.tb(t, 1, "collect", c.logs(t, dir, "b", "b", "bad"), "-o", b)
	t.Log(strings.TrimSpace(summary))
	assert.Contains(t, summary, "no result from pod/"+pods[0].Name+"/throttlebench")
	assert.Contains(t, summary, "3 results from 4 pods")
	require.Len(t, readResults(t, b), len(limits))

	// compare: the two collected sets, configuration by configuration on
	// the node. Exit 3 would be a regression between two identical
	// sweeps, which noise can make: the test asks only that every
	// configuration was paired and judged.
	out, errb, code := run(t, c.bin, "compare", "--format", "json", a, b)
	require.Contains(t, []int{0, 3}, code, "compare: %s", errb)
	var cmp struct {
		Rows     []json.RawMessage `json:"rows"`
		Verdicts map[string]int    `json:"verdicts"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &cmp))
	assert.Len(t, cmp.Rows, len(limits))
	judged := 0
	for _, n := range cmp.Verdicts {
		judged += n
	}
	assert.Equal(t, len(limits), judged, "verdicts: %v", cmp.Verdicts)
}

// TestPodLevelLimit: --cgroup current in a pod whose only CPU limit is the
// pod's own (pod-level resources, beta and on by default in v1.34), the
// nesting the emitted Jobs do not write. On cgroup v1 the container sees
// its own cgroup only (runc mounts that directory alone), so what it can
// count is what the kubelet wrote there: the pod's limit, applied to a
// container that has none. The API refuses a container limit above the
// pod's, so the container's quota is the tighter of the two.
func TestPodLevelLimit(t *testing.T) {
	c := newCluster(t)
	c.fresh(t, "pod-level")
	dir := t.TempDir()
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}
	job := batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "tb-pod-level", Labels: map[string]string{"throttlebench/sweep": "pod-level"}},
		Spec: batchv1.JobSpec{
			BackoffLimit: new(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"throttlebench/sweep": "pod-level"}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Resources:     &corev1.ResourceRequirements{Requests: res, Limits: res},
					Containers: []corev1.Container{{
						Name: "throttlebench", Image: "throttlebench:dev", Command: []string{"/throttlebench"},
						Args: []string{"run", "--cgroup", "current", "--format", "json", "--workers", "2",
							"--batch", "30", "--iterations", "5", "--min-time", "4s"},
					}},
				},
			},
		},
	}
	manifest, err := yaml.Marshal(job)
	require.NoError(t, err)
	file := filepath.Join(dir, "pod-level.yaml")
	require.NoError(t, os.WriteFile(file, manifest, 0o644))
	c.k(t, "apply", "-f", file)

	sel := "throttlebench/sweep=pod-level"
	_, h := c.whileRunning(t, sel)
	t.Logf("pod-level 500m: quota/period: pod %d/%d, container %d/%d, read %v after the container's start",
		h.podQuota, h.podPeriod, h.ctrQuota, h.ctrPeriod, h.procs[0].age.Round(time.Millisecond))
	assert.Equal(t, int64(50000), h.podQuota, "the pod's quota")
	assert.Equal(t, int64(50000), h.ctrQuota, "the container's quota: the pod's, applied by the kubelet")
	c.k(t, "wait", "job", "tb-pod-level", "--for=condition=Complete", "--timeout=2m")

	out := filepath.Join(dir, "pod-level.json")
	c.tb(t, 0, "collect", c.logs(t, dir, "pod-level", "pod-level"), "-o", out)
	results := readResults(t, out)
	require.Len(t, results, 1)
	r := results[0]
	tight := min(float64(h.podQuota)/float64(h.podPeriod), float64(h.ctrQuota)/float64(h.ctrPeriod))
	assert.InDelta(t, tight, r.Cgroup.EffectiveCPUs, 1e-9, "effective_cpus")
	require.NotNil(t, r.Throttling.NrThrottled)
	assert.Positive(t, *r.Throttling.NrThrottled, "nr_throttled: two workers against half a CPU")
}
