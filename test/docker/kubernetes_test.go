//go:build linux

package dockertest

import (
	"bufio"
	"bytes"
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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/throttlebench/throttlebench/internal/testenv"
)

// hostBinary is the throttlebench that emits, collects and compares on the
// host side: bin/throttlebench, which run.sh builds (the image holds the
// same), else one built here.
func hostBinary(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", "bin", "throttlebench"))
	require.NoError(t, err)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	bin = filepath.Join(t.TempDir(), "throttlebench")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/throttlebench").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// tb runs the host binary; it returns stdout, stderr and the exit code.
func tb(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	return testenv.Run(t, exec.Command(bin, args...))
}

// jobsOf decodes the emitted YAML strictly into batch/v1 Jobs.
func jobsOf(t *testing.T, data []byte) []batchv1.Job {
	t.Helper()
	var jobs []batchv1.Job
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		content := false
		for _, l := range strings.Split(string(doc), "\n") {
			if l = strings.TrimSpace(l); l != "" && l != "---" && !strings.HasPrefix(l, "#") {
				content = true
			}
		}
		if !content {
			continue
		}
		var j batchv1.Job
		require.NoError(t, yaml.UnmarshalStrict(doc, &j), "%s", doc)
		jobs = append(jobs, j)
	}
	return jobs
}

// podFlags are the docker run flags that stand for what Kubernetes gives
// the Job's pod: its CPU and memory limits, the node's name through the
// downward API, its security context.
func podFlags(t *testing.T, j batchv1.Job) (flags []string, node string) {
	t.Helper()
	spec := j.Spec.Template.Spec
	require.NotNil(t, spec.Affinity, "a --per-node Job is pinned")
	node = spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
	return containerFlags(t, spec.Containers[0], node), node
}

// containerFlags are the docker run flags for what a container spec asks of
// the kubelet, on node.
func containerFlags(t *testing.T, c corev1.Container, node string) (flags []string) {
	t.Helper()
	cpus := c.Resources.Limits.Cpu().AsApproximateFloat64()
	flags = []string{
		"--cpus", strconv.FormatFloat(cpus, 'f', -1, 64),
		"--memory", strconv.FormatInt(c.Resources.Limits.Memory().Value(), 10),
		"--entrypoint", c.Command[0],
	}
	for _, e := range c.Env {
		require.NotNil(t, e.ValueFrom, "the node's name comes from the downward API")
		require.Equal(t, "spec.nodeName", e.ValueFrom.FieldRef.FieldPath)
		flags = append(flags, "-e", e.Name+"="+node)
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			group := *sc.RunAsUser
			if sc.RunAsGroup != nil {
				group = *sc.RunAsGroup
			}
			flags = append(flags, "--user", fmt.Sprintf("%d:%d", *sc.RunAsUser, group))
		}
		if sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem {
			flags = append(flags, "--read-only")
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Drop {
				flags = append(flags, "--cap-drop", string(c))
			}
		}
		if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
			flags = append(flags, "--security-opt", "no-new-privileges")
		}
	}
	return flags
}

// The cluster round trip, with Docker standing in for the kubelet: emit the
// Jobs of a --per-node sweep, run each Job's container command in the image
// with the Job's CPU and memory limits and its node's name, capture the
// output as kubectl logs --prefix prints it, collect it, then compare and
// plot the collected file.
func TestKubernetesRoundTrip(t *testing.T) {
	img := image(t)
	bin := hostBinary(t)
	dir := t.TempDir()
	jobsPath := filepath.Join(dir, "jobs.yaml")
	_, stderr, code := tb(t, bin, "sweep", "--emit", "kubernetes", "--image", img, "--sweep-id", "rt",
		"--cpus", "0.25,0.5,1", "--per-node", "--nodes", "node-a,node-b",
		"--batch", "60", "--iterations", "6", "--min-time", "1s", "-o", jobsPath)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(jobsPath)
	require.NoError(t, err)
	jobs := jobsOf(t, data)
	require.Len(t, jobs, 6, "3 configurations × 2 nodes")

	// One configuration at a time, as the header says to apply them; a
	// pod's log is its stdout and stderr together.
	var logs bytes.Buffer
	start := time.Now()
	for i, j := range jobs {
		flags, node := podFlags(t, j)
		c := j.Spec.Template.Spec.Containers[0]
		assert.Equal(t, img, c.Image)
		assert.Equal(t, corev1.RestartPolicyNever, j.Spec.Template.Spec.RestartPolicy)
		args := append(append(append([]string{"run", "--rm", "--network", "none"}, flags...), c.Image), c.Args...)
		cmd := exec.Command("docker", args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Run(), "docker %s: %s", strings.Join(args, " "), out.String())
		pod := fmt.Sprintf("pod/%s-%05d/%s", j.Name, i, c.Name)
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			fmt.Fprintf(&logs, "[%s] %s\n", pod, sc.Text())
		}
		t.Logf("%s on %s: docker run %s", j.Name, node, strings.Join(flags, " "))
	}
	t.Logf("6 pods in %v", time.Since(start).Round(time.Millisecond))
	logPath := filepath.Join(dir, "logs.txt")
	require.NoError(t, os.WriteFile(logPath, logs.Bytes(), 0o644))

	collected := filepath.Join(dir, "collected.json")
	_, stderr, code = tb(t, bin, "collect", "-o", collected, logPath)
	require.Equal(t, 0, code, "every pod gave its result: %s", stderr)
	t.Logf("collect: %s", strings.TrimSpace(stderr))
	raw, err := os.ReadFile(collected)
	require.NoError(t, err)
	var results []struct {
		Host struct {
			Node string `json:"node"`
		} `json:"host"`
		Cgroup struct {
			Mode          string  `json:"mode"`
			QuotaUs       int64   `json:"quota_us"`
			PeriodUs      *int64  `json:"period_us"`
			EffectiveCPUs float64 `json:"effective_cpus"`
		} `json:"cgroup"`
	}
	require.NoError(t, json.Unmarshal(raw, &results))
	require.Len(t, results, 6)
	// By node, then by limit: each result says where it ran and what the
	// limit gave its cgroup.
	for i, r := range results {
		wantNode := []string{"node-a", "node-b"}[i/3]
		wantQuota := []int64{25000, 50000, 100000}[i%3]
		assert.Equal(t, wantNode, r.Host.Node)
		assert.Equal(t, "current", r.Cgroup.Mode)
		assert.Equal(t, wantQuota, r.Cgroup.QuotaUs, "the Job's CPU limit × 100 ms")
		require.NotNil(t, r.Cgroup.PeriodUs)
		assert.Equal(t, int64(100000), *r.Cgroup.PeriodUs)
	}

	// One node against the other, limit by limit.
	a, b := filepath.Join(dir, "node-a.json"), filepath.Join(dir, "node-b.json")
	for node, path := range map[string]string{"node-a": a, "node-b": b} {
		_, stderr, code = tb(t, bin, "collect", "--node", node, "-o", path, logPath)
		require.Equal(t, 0, code, stderr)
	}
	table, stderr, code := tb(t, bin, "compare", "--match", "-node", "--fail-on", "never", a, b)
	require.Equal(t, 0, code, stderr)
	// The prose is wrapped to the table's width: read it as one line.
	flat := strings.Join(strings.Fields(table), " ")
	assert.Contains(t, flat, "verdict:")
	assert.Contains(t, flat, "of 3 configurations compared")
	t.Logf("compare --match -node node-a.json node-b.json:\n%s", table)

	// The collected file on both sides: node by node, six configurations.
	same, stderr, code := tb(t, bin, "compare", collected, collected)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, strings.Join(strings.Fields(same), " "), "0 regressions, 0 improvements, 6 without significant change, of 6 configurations compared")

	sweepTable, stderr, code := tb(t, bin, "sweep", "--from", collected)
	require.Equal(t, 0, code, stderr)
	// The header line of the table, under what it says is the same in
	// every row or left out to fit.
	header := false
	for _, l := range strings.Split(sweepTable, "\n") {
		header = header || strings.HasPrefix(strings.TrimSpace(l), "node  cpus")
	}
	assert.True(t, header, sweepTable)
	t.Logf("sweep --from collected.json:\n%s", sweepTable)

	svg := filepath.Join(dir, "nodes.svg")
	_, stderr, code = tb(t, bin, "sweep", "--from", collected, "--plot", svg, "--format", "csv")
	require.Equal(t, 0, code, stderr)
	pic, err := os.ReadFile(svg)
	require.NoError(t, err)
	for _, want := range []string{"throttlebench sweep on 2 nodes (node-a, node-b)", ">node=node-a<", ">node=node-b<", "CPU share"} {
		assert.True(t, bytes.Contains(pic, []byte(want)), "the picture says %q", want)
	}
}

// sonobuoyPlugin is a Sonobuoy plugin definition, its container as core/v1
// has it.
type sonobuoyPlugin struct {
	Config struct {
		Driver       string `json:"driver"`
		PluginName   string `json:"plugin-name"`
		ResultFormat string `json:"result-format"`
		Description  string `json:"description"`
	} `json:"sonobuoy-config"`
	Spec    corev1.Container `json:"spec"`
	PodSpec *corev1.PodSpec  `json:"podSpec,omitempty"`
}

// The Sonobuoy plugin, Docker standing in for the DaemonSet's pod and a
// directory for the results volume Sonobuoy's worker shares: the container
// writes its result and then the done file naming it, and stays; the
// result, laid out as sonobuoy retrieve's archive holds it, is collected.
func TestSonobuoyPluginRoundTrip(t *testing.T) {
	img := image(t)
	bin := hostBinary(t)
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	_, stderr, code := tb(t, bin, "sweep", "--emit", "sonobuoy", "--image", img, "--sweep-id", "rt",
		"--cpus", "0.5", "--batch", "60", "--iterations", "4", "--min-time", "1s", "-o", plugins)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(filepath.Join(plugins, "throttlebench-rt-c0.yaml"))
	require.NoError(t, err)
	var p sonobuoyPlugin
	docs := bytes.Split(data, []byte("\n---\n"))
	require.NoError(t, yaml.UnmarshalStrict(docs[len(docs)-1], &p))
	require.Equal(t, "DaemonSet", p.Config.Driver)
	require.Len(t, p.Spec.VolumeMounts, 1)

	results := filepath.Join(dir, "results")
	require.NoError(t, os.Mkdir(results, 0o777))
	require.NoError(t, os.Chmod(results, 0o777), "the container runs as 65534")
	name := fmt.Sprintf("tb-sonobuoy-%d", os.Getpid())
	args := append([]string{"run", "-d", "--rm", "--name", name, "--network", "none", "-v", results + ":" + p.Spec.VolumeMounts[0].MountPath},
		containerFlags(t, p.Spec, "node-s")...)
	args = append(append(args, p.Spec.Image), p.Spec.Args...)
	out, err := exec.Command("docker", args...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", name).Run() })

	var done []byte
	deadline := time.Now().Add(60 * time.Second)
	for done, err = os.ReadFile(filepath.Join(results, "done")); err != nil; done, err = os.ReadFile(filepath.Join(results, "done")) {
		require.True(t, time.Now().Before(deadline), "no done file after 60 s")
		time.Sleep(100 * time.Millisecond)
	}
	assert.Equal(t, "/tmp/sonobuoy/results/throttlebench.json", string(done), "the result's path, as Sonobuoy's worker reads it")
	running, err := exec.Command("docker", "inspect", "-f", "{{.State.Running}}", name).Output()
	require.NoError(t, err)
	assert.Equal(t, "true", strings.TrimSpace(string(running)), "it stays: a DaemonSet would restart it and measure again")
	result, err := os.ReadFile(filepath.Join(results, "throttlebench.json"))
	require.NoError(t, err)

	// What sonobuoy retrieve brings back: the file under the plugin's
	// results for the node.
	archive := filepath.Join(dir, "202501011200_sonobuoy_rt.tar.gz")
	tree := filepath.Join(dir, "tree")
	member := filepath.Join("plugins", p.Config.PluginName, "results", "node-s", "throttlebench.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(tree, member)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, member), result, 0o644))
	out, err = exec.Command("tar", "-C", tree, "-czf", archive, "plugins").CombinedOutput()
	require.NoError(t, err, "%s", out)
	collected, stderr, code := tb(t, bin, "collect", archive)
	require.Equal(t, 0, code, stderr)
	var reps []struct {
		Host struct {
			Node string `json:"node"`
		} `json:"host"`
		Cgroup struct {
			QuotaUs int64 `json:"quota_us"`
		} `json:"cgroup"`
	}
	require.NoError(t, json.Unmarshal([]byte(collected), &reps))
	require.Len(t, reps, 1)
	assert.Equal(t, "node-s", reps[0].Host.Node)
	assert.Equal(t, int64(50000), reps[0].Cgroup.QuotaUs)
	t.Logf("collect: %s", strings.TrimSpace(stderr))
}
