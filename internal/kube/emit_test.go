package kube

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/modes"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

var testNow = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func none(string) bool { return false }

// gave says that the user gave these flags.
func gave(flags ...string) func(string) bool {
	return func(name string) bool {
		for _, f := range flags {
			if f == name {
				return true
			}
		}
		return false
	}
}

// usage asserts a badinput.Error about flag that says want.
func usage(t *testing.T, err error, flag, want string) {
	t.Helper()
	var ce *badinput.Error
	require.True(t, errors.As(err, &ce), "a badinput.Error (exit 2): %v", err)
	assert.Equal(t, flag, ce.Param)
	assert.Contains(t, err.Error(), want)
	assert.NotContains(t, err.Error(), "\n", "one line")
}

// planned plans a sweep as sweep does, the runner's options holding what
// the emitter reads of them (the closed loop's: the workload, its buffers
// and batch).
func planned(t *testing.T, given map[string]string) []sweep.Step {
	t.Helper()
	spec := sweep.SpecFor(config.Batch, given)
	spec.MaxConfigs = 1000
	spec.Options = func(c config.Config) (plan.Options, error) {
		return plan.Options{Bench: c.ClosedLoop()}, nil
	}
	steps, err := sweep.Plan(spec)
	require.NoError(t, err)
	return steps
}

// request is a Kubernetes emit of the sweep given, with --sweep-id x.
func request(t *testing.T, given map[string]string) Request {
	return Request{Flags: Flags{Emit: Kubernetes, Image: DefaultImage, PodMemory: DefaultPodMemory, TTL: DefaultTTL, Deadline: DefaultDeadline, SweepID: "x"},
		Changed: gave("sweep-id"), Steps: planned(t, given), Given: given, MaxConfigs: 1000, Now: testNow}
}

// What a pod cannot express is refused before anything is planned, with
// why and what to do instead.
func TestCheck(t *testing.T) {
	f := Flags{Emit: Kubernetes}
	value := func(name string) string { return "v-" + name }
	for _, r := range modes.Table[modes.SweepEmit] {
		flag := r.Flags[0]
		usage(t, f.Check(gave("cpus", flag), value, "auto"), flag, `--`+flag+` "v-`+flag+`" cannot be emitted: `)
	}
	usage(t, f.Check(gave("cpus"), value, "create"), "cgroup", "--cgroup current")
	usage(t, f.Check(gave("cpus"), value, "mine"), "cgroup", "want one of auto, current")
	usage(t, f.Check(none, value, "auto"), "cpus", "needs --cpus")
	usage(t, Flags{Emit: "helm"}.Check(gave("cpus"), value, "auto"), "emit", "want one of kubernetes, sonobuoy")
	assert.NoError(t, f.Check(gave("cpus"), value, "current"))
}

// Each planned configuration becomes a pod's run: its flags in the order
// of config.Params, run's settings passed on, the swept values as labels;
// what the sweep would skip is skipped, and said.
func TestRuns(t *testing.T) {
	given := map[string]string{"cpus": "0.005,0.5", "workers": "1,2", "pin": "true", "batch": "20"}
	r := request(t, given)
	r.Pass = []string{"--timeout", "5m0s"}
	var skipped []string
	r.Skipped = func(c sweep.Config, why string) { skipped = append(skipped, sweep.Describe(c)) }
	o, err := r.Flags.options(r.Changed, nil, 0, testNow)
	require.NoError(t, err)
	runs, err := r.runs(o)
	require.NoError(t, err)
	assert.Equal(t, []string{"workers=1 cpus=0.005", "workers=2 cpus=0.005"}, skipped, "a quota below 1ms")
	require.Len(t, runs, 2)
	assert.Equal(t, 1, runs[0].Index, "the index is the configuration's in the sweep")
	assert.Equal(t, "500m", runs[0].CPU.String())
	assert.Equal(t, []string{"run", "--cgroup", "current", "--format", "json", "--batch", "20", "--workers", "1", "--pin=true", "--timeout", "5m0s"}, runs[0].Args)
	assert.Equal(t, []Label{{"workers", "1"}, {"cpus", "0.5"}}, runs[0].Swept)

	r.Flags.Emit = Sonobuoy
	runs, err = r.runs(o)
	require.NoError(t, err)
	assert.Equal(t, []string{"run", "--cgroup", "current", "--format", "json", "--sonobuoy-results", SonobuoyResults}, runs[0].Args[:7])

	r = request(t, map[string]string{"cpus": "0.005"})
	_, err = r.runs(o)
	assert.ErrorIs(t, err, sweep.ErrAllSkipped)

	r = request(t, map[string]string{"cpus": "0.1234"})
	_, err = r.runs(o)
	usage(t, err, "cpus", "whole millicores")

	r = request(t, map[string]string{"cpus": "0.25,0.5"})
	r.MaxConfigs = 3
	o.Nodes = []string{"a", "b"}
	_, err = r.runs(o)
	usage(t, err, "max-configs", "2 configurations on 2 nodes are 4 Jobs")
}

// memtouch's buffers must fit the pod's memory, or the pod is OOM-killed
// and its result lost.
func TestPodFits(t *testing.T) {
	r := request(t, map[string]string{"cpus": "0.5", "workload": "memtouch", "workers": "512"})
	o, err := r.Flags.options(r.Changed, nil, 0, testNow)
	require.NoError(t, err)
	_, err = r.runs(o)
	usage(t, err, "pod-memory", "give --pod-memory 576Mi or more")
	r.Flags.PodMemory = "576Mi"
	o, err = r.Flags.options(r.Changed, nil, 0, testNow)
	require.NoError(t, err)
	_, err = r.runs(o)
	assert.NoError(t, err)

	// Reuse keeps a buffer per operation of the batch: 4 workers × 50 MiB.
	r = request(t, map[string]string{"cpus": "0.5", "workload": "memtouch", "memory": "reuse", "workers": "4"})
	o, err = r.Flags.options(r.Changed, nil, 0, testNow)
	require.NoError(t, err)
	_, err = r.runs(o)
	usage(t, err, "pod-memory", "needs about 264 MiB (--memory reuse keeps --batch 50 buffers per worker, and 64 MiB for the process); give --pod-memory 264Mi or more")
}

// A Job's deadline: 30m by default, --timeout plus 10m when that is
// longer, or --job-deadline, which must outlast --timeout.
func TestDeadline(t *testing.T) {
	f := Flags{Emit: Kubernetes, Image: DefaultImage, PodMemory: DefaultPodMemory, Deadline: DefaultDeadline}
	for _, c := range []struct {
		changed  func(string) bool
		deadline time.Duration
		timeout  time.Duration
		want     time.Duration
	}{
		{none, DefaultDeadline, 0, 30 * time.Minute},
		{none, DefaultDeadline, 45 * time.Minute, 55 * time.Minute},
		{gave("job-deadline"), 2 * time.Hour, time.Hour, 2 * time.Hour},
	} {
		f.Deadline = c.deadline
		o, err := f.options(c.changed, nil, c.timeout, testNow)
		require.NoError(t, err)
		assert.Equal(t, c.want, o.Deadline)
	}
	f.Deadline = 30 * time.Minute
	_, err := f.options(gave("job-deadline"), nil, time.Hour, testNow)
	usage(t, err, "job-deadline", "give --job-deadline 1h10m0s or more")
	o, err := f.options(none, nil, 0, testNow)
	require.NoError(t, err)
	assert.Equal(t, "20250102-030405", o.SweepID, "the time, without --sweep-id")
}

// --per-node's nodes: from --nodes or from a file or stdin as kubectl get
// nodes -o name prints them, each once, each a node name.
func TestNodes(t *testing.T) {
	f := Flags{Emit: Kubernetes, PerNode: true, NodesFrom: "-"}
	got, err := f.nodes(gave("nodes-from"), strings.NewReader("node/node-a\n\n# a comment\nnode/node-b\nnode-a\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"node-a", "node-b"}, got)

	f.Nodes = "a, " + strings.Repeat("b", 64) + ".example.com"
	got, err = f.nodes(gave("nodes"), nil)
	require.NoError(t, err)
	assert.Len(t, got, 2, "a dotted part over 63 characters is a node name")

	f.Nodes = "a,Node_B"
	_, err = f.nodes(gave("nodes"), nil)
	usage(t, err, "nodes", `node "Node_B": `+NodeName("Node_B"))
	f.NodesFrom = filepath.Join(t.TempDir(), "none.txt")
	_, err = f.nodes(gave("nodes-from"), nil)
	usage(t, err, "nodes-from", "no such file or directory")
	_, err = f.nodes(gave("nodes", "nodes-from"), nil)
	usage(t, err, "nodes", "conflicts with --nodes-from")
	_, err = f.nodes(none, nil)
	usage(t, err, "per-node", "--per-node needs the nodes")
	f.PerNode = false
	_, err = f.nodes(gave("nodes"), nil)
	usage(t, err, "nodes", "applies with --per-node")
}

// A Sonobuoy plugin runs on every node, with its own time and clean-up.
func TestSonobuoyOnly(t *testing.T) {
	f := Flags{Emit: Sonobuoy, Image: DefaultImage, PodMemory: DefaultPodMemory, NodeSelector: []string{"a=1", "b=2"}}
	for _, flag := range []string{"per-node", "nodes", "nodes-from", "ttl", "job-deadline"} {
		_, err := Flags{Emit: Sonobuoy, Image: DefaultImage, PodMemory: DefaultPodMemory}.options(gave(flag), nil, 0, testNow)
		usage(t, err, flag, "applies to --emit kubernetes")
	}
	_, err := f.options(none, nil, 0, testNow)
	usage(t, err, "node-selector", "takes one --node-selector (2 given)")
}

// --node-selector's keys and values are checked by apimachinery.
func TestNodeSelector(t *testing.T) {
	got, err := nodeSelector([]string{"cloud.google.com/gke-nodepool=pool-a", "pool="})
	require.NoError(t, err)
	assert.Equal(t, []Label{{"cloud.google.com/gke-nodepool", "pool-a"}, {"pool", ""}}, got)
	_, err = nodeSelector([]string{"pool"})
	usage(t, err, "node-selector", "want key=value")
	_, err = nodeSelector([]string{"Bad_Prefix/x=1"})
	usage(t, err, "node-selector", `key "Bad_Prefix/x": prefix part a lowercase RFC 1123 subdomain`)
	_, err = nodeSelector([]string{"pool=a b"})
	usage(t, err, "node-selector", `value "a b"`)
	_, err = nodeSelector([]string{"pool=a", "pool=b"})
	usage(t, err, "node-selector", "given twice (also pool=a)")
}

// Emit writes the header the user follows, then the Jobs.
func TestEmitJobs(t *testing.T) {
	r := request(t, map[string]string{"cpus": "0.5,1"})
	r.CommandLine = "throttlebench sweep --cpus 0.5,1"
	var out bytes.Buffer
	require.NoError(t, Emit(r, &out))
	lines := strings.Split(out.String(), "\n")
	assert.Equal(t, "# throttlebench sweep --emit kubernetes: sweep x, 2 configurations = 2 Jobs", lines[0])
	assert.Equal(t, "# generated by: throttlebench sweep --cpus 0.5,1", lines[1])
	assert.Contains(t, out.String(), "#   for c in 0 1; do\n#     kubectl apply -f jobs.yaml -l throttlebench/sweep=x,throttlebench/config=$c || break\n")
	jobs := decodeJobs(t, out.Bytes())
	require.Len(t, jobs, 2)
	assert.Equal(t, "tb-x-c1", jobs[1].Name)

	r.Output = filepath.Join(t.TempDir(), "sweep.yaml")
	require.NoError(t, Emit(r, nil))
	data, err := os.ReadFile(r.Output)
	require.NoError(t, err)
	assert.Contains(t, string(data), "kubectl apply -f sweep.yaml ")
	r.Output = "/dev/null"
	usage(t, Emit(r, nil), "output", `invalid --output "/dev/null"`)
}
