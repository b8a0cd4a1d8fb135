package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// The examples under examples/kubernetes are the golden files: what
// sweep --emit kubernetes writes for these commands, byte for byte, and
// every document decodes strictly (an unknown or misplaced field is an
// error) into the official batch/v1 Job, its names and labels valid by
// apimachinery's rules. go test ./cmd/throttlebench -run
// TestEmitKubernetes -update rewrites them.
func TestEmitKubernetes(t *testing.T) {
	cases := []struct {
		golden string
		args   []string
		jobs   int
		nodes  []string
		sel    map[string]string
		check  func(t *testing.T, jobs []batchv1.Job)
	}{
		{golden: "sweep.yaml", args: []string{"--cpus", "0.25,0.5,1", "--batch", "20", "--iterations", "10"}, jobs: 3,
			check: func(t *testing.T, jobs []batchv1.Job) {
				assert.Equal(t, []string{"250m", "500m", "1"}, cpuLimits(jobs))
				assert.Equal(t, "tb-example-c0", jobs[0].Name)
				assert.Nil(t, jobs[0].Spec.Template.Spec.Affinity, "without --per-node a Job runs anywhere")
			}},
		{golden: "per-node.yaml", args: []string{"--cpus", "0.25,0.5,1", "--per-node", "--nodes", "node-a,node-b,node-c", "--batch", "20", "--iterations", "10"},
			jobs: 9, nodes: []string{"node-a", "node-b", "node-c"},
			check: func(t *testing.T, jobs []batchv1.Job) {
				assert.Equal(t, "tb-example-c2-n1", jobs[7].Name)
				assert.Equal(t, "node-b", jobs[7].Labels["throttlebench/node"])
			}},
		{golden: "node-selector.yaml", args: []string{"--cpus", "0.5,1", "--workers", "1,2", "--workload", "spin", "--units", "500",
			"--node-selector", "cloud.google.com/gke-nodepool=pool-a", "--node-selector", "kubernetes.io/arch=amd64", "--pod-memory", "128Mi", "--ttl", "2h"},
			jobs: 4, sel: map[string]string{"cloud.google.com/gke-nodepool": "pool-a", "kubernetes.io/arch": "amd64"},
			check: func(t *testing.T, jobs []batchv1.Job) {
				// The CPU share varies fastest, as in a sweep that runs.
				assert.Equal(t, []string{"500m", "1", "500m", "1"}, cpuLimits(jobs))
				assert.Equal(t, "2", jobs[3].Labels["throttlebench/workers"])
				assert.Equal(t, []string{"run", "--cgroup", "current", "--format", "json", "--workload", "spin", "--units", "500", "--workers", "2"},
					jobs[3].Spec.Template.Spec.Containers[0].Args)
				assert.Equal(t, int32(7200), *jobs[0].Spec.TTLSecondsAfterFinished)
				assert.Equal(t, "128Mi", jobs[0].Spec.Template.Spec.Containers[0].Resources.Limits.Memory().String())
			}},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			path := filepath.Join("..", "..", "examples", "kubernetes", c.golden)
			out := filepath.Join(t.TempDir(), c.golden)
			args := append([]string{"sweep", "--emit", "kubernetes", "--sweep-id", "example", "-o", out}, c.args...)
			code, stdout, stderr := runCLI(args...)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, stdout)
			assert.Empty(t, stderr)
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to write it")
			assert.Equal(t, string(want), string(got), "the example is not what the emitter writes: go test ./cmd/throttlebench -run TestEmitKubernetes -update")

			jobs := decodeJobs(t, got)
			require.Len(t, jobs, c.jobs)
			for i, j := range jobs {
				node := ""
				if len(c.nodes) > 0 {
					node = c.nodes[i%len(c.nodes)]
				}
				checkJob(t, j, node, c.sel)
			}
			c.check(t, jobs)
		})
	}
}

// decodeJobs splits a YAML stream and decodes every document strictly into
// a batch/v1 Job.
func decodeJobs(t *testing.T, data []byte) []batchv1.Job {
	t.Helper()
	var jobs []batchv1.Job
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		if !hasContent(doc) {
			continue
		}
		var j batchv1.Job
		require.NoError(t, yaml.UnmarshalStrict(doc, &j), "strict decoding:\n%s", doc)
		jobs = append(jobs, j)
	}
	return jobs
}

// hasContent says whether a YAML document holds more than comments.
func hasContent(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && line != "---" && !strings.HasPrefix(line, "#") {
			return true
		}
	}
	return false
}

func cpuLimits(jobs []batchv1.Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Spec.Template.Spec.Containers[0].Resources.Limits.Cpu().String())
	}
	return out
}

// checkJob asserts what every emitted Job must be.
func checkJob(t *testing.T, j batchv1.Job, node string, sel map[string]string) {
	t.Helper()
	assert.Equal(t, "batch/v1", j.APIVersion)
	assert.Equal(t, "Job", j.Kind)
	// Validated as the API server validates names and labels: a Job's
	// name is an object name and becomes its pods' job-name label value.
	assert.Empty(t, content.IsDNS1123Subdomain(j.Name))
	assert.Empty(t, content.IsLabelValue(j.Name), "a Job's name becomes a label value")
	assert.Empty(t, metav1validation.ValidateLabels(j.Labels, field.NewPath("metadata", "labels")))
	assert.Empty(t, metav1validation.ValidateLabels(j.Spec.Template.Labels, field.NewPath("spec", "template", "metadata", "labels")))
	assert.Empty(t, metav1validation.ValidateLabels(j.Spec.Template.Spec.NodeSelector, field.NewPath("spec", "template", "spec", "nodeSelector")))
	require.NotNil(t, j.Spec.BackoffLimit)
	assert.Equal(t, int32(0), *j.Spec.BackoffLimit, "a failed measurement is not retried")
	require.NotNil(t, j.Spec.TTLSecondsAfterFinished)
	require.NotNil(t, j.Spec.ActiveDeadlineSeconds, "a pod that never starts or never ends must not outlive its configuration's turn")
	assert.Equal(t, "example", j.Labels["throttlebench/sweep"])
	assert.Equal(t, j.Labels, j.Spec.Template.Labels, "the pods carry the Job's labels, for kubectl logs -l")
	p := j.Spec.Template.Spec
	assert.Equal(t, corev1.RestartPolicyNever, p.RestartPolicy)
	require.NotNil(t, p.AutomountServiceAccountToken)
	assert.False(t, *p.AutomountServiceAccountToken, "the pod calls no API")
	assert.Equal(t, sel, p.NodeSelector)
	require.Len(t, p.Containers, 1)
	c := p.Containers[0]
	assert.Equal(t, "throttlebench:dev", c.Image)
	assert.Equal(t, []string{"/throttlebench"}, c.Command)
	assert.Equal(t, []string{"run", "--cgroup", "current", "--format", "json"}, c.Args[:5])
	// Guaranteed QoS: requests equal limits, CPU and memory.
	assert.Equal(t, c.Resources.Limits, c.Resources.Requests)
	assert.False(t, c.Resources.Limits.Cpu().IsZero())
	assert.False(t, c.Resources.Limits.Memory().IsZero())
	require.Len(t, c.Env, 1)
	assert.Equal(t, "THROTTLEBENCH_NODE", c.Env[0].Name)
	require.NotNil(t, c.Env[0].ValueFrom)
	assert.Equal(t, "spec.nodeName", c.Env[0].ValueFrom.FieldRef.FieldPath)
	require.NotNil(t, c.SecurityContext)
	assert.True(t, *c.SecurityContext.RunAsNonRoot)
	if node == "" {
		assert.Nil(t, p.Affinity)
		return
	}
	require.NotNil(t, p.Affinity)
	terms := p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	require.Len(t, terms, 1)
	require.Len(t, terms[0].MatchFields, 1)
	f := terms[0].MatchFields[0]
	assert.Equal(t, "metadata.name", f.Key)
	assert.Equal(t, corev1.NodeSelectorOpIn, f.Operator)
	assert.Equal(t, []string{node}, f.Values)
}

// --nodes-from reads kubectl get nodes -o name; the same nodes as --nodes.
func TestEmitNodesFrom(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "nodes.txt")
	require.NoError(t, os.WriteFile(list, []byte("node/node-a\n\n# a comment\nnode/node-b\nnode-a\n"), 0o644))
	code, fromFile, stderr := runCLI("sweep", "--emit", "kubernetes", "--sweep-id", "x", "--cpus", "1", "--per-node", "--nodes-from", list)
	require.Equal(t, exitOK, code, stderr)
	code, fromFlag, stderr := runCLI("sweep", "--emit", "kubernetes", "--sweep-id", "x", "--cpus", "1", "--per-node", "--nodes", "node-a,node-b")
	require.Equal(t, exitOK, code, stderr)
	strip := func(s string) string { // the generated-by line names the flags
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "# generated by:") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	assert.Equal(t, strip(fromFlag), strip(fromFile))
	assert.Len(t, decodeJobs(t, []byte(fromFile)), 2, "node-a once")
}

// A configuration the kernel cannot take (a quota below 1 ms) is skipped,
// as a sweep that runs skips it, and said on stderr.
func TestEmitSkipsWhatCannotBe(t *testing.T) {
	code, stdout, stderr := runCLI("sweep", "--emit", "kubernetes", "--sweep-id", "x", "--cpus", "0.005,0.5")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "skipped cpus=0.005")
	jobs := decodeJobs(t, []byte(stdout))
	require.Len(t, jobs, 1)
	assert.Equal(t, "tb-x-c1", jobs[0].Name, "the index is the configuration's in the sweep")
}

// plugin is a Sonobuoy plugin definition: sonobuoy-config's keys as
// Sonobuoy's manifest reads them, the container and the pod as the
// official core/v1 types.
type plugin struct {
	Config struct {
		Driver       string `json:"driver"`
		PluginName   string `json:"plugin-name"`
		ResultFormat string `json:"result-format"`
		Description  string `json:"description"`
	} `json:"sonobuoy-config"`
	Spec    corev1.Container `json:"spec"`
	PodSpec *corev1.PodSpec  `json:"podSpec,omitempty"`
}

// The examples under examples/sonobuoy are the golden files of
// sweep --emit sonobuoy: its plugins, one file per configuration, in the
// directory -o names, however many; every one decodes strictly.
func TestEmitSonobuoy(t *testing.T) {
	cases := []struct {
		golden string // a directory
		args   []string
		files  int
		sel    map[string]string
	}{
		{golden: "single", args: []string{"--cpus", "0.5", "--batch", "60", "--iterations", "10", "--min-time", "2s"}, files: 1},
		{golden: "pool-a", args: []string{"--cpus", "0.25,0.5,1", "--batch", "60", "--iterations", "10", "--min-time", "2s",
			"--node-selector", "cloud.google.com/gke-nodepool=pool-a"}, files: 3, sel: map[string]string{"cloud.google.com/gke-nodepool": "pool-a"}},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			golden := filepath.Join("..", "..", "examples", "sonobuoy", c.golden)
			out := filepath.Join(t.TempDir(), c.golden)
			code, stdout, stderr := runCLI(append([]string{"sweep", "--emit", "sonobuoy", "--sweep-id", "example", "-o", out}, c.args...)...)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, stdout)
			entries, err := os.ReadDir(out)
			require.NoError(t, err)
			var files []string
			for _, e := range entries {
				files = append(files, filepath.Join(out, e.Name()))
			}
			require.Len(t, files, c.files)
			if *update {
				require.NoError(t, os.RemoveAll(golden))
				require.NoError(t, os.Mkdir(golden, 0o755))
			}
			for i, f := range files {
				got, err := os.ReadFile(f)
				require.NoError(t, err)
				want := filepath.Join(golden, filepath.Base(f))
				if *update {
					require.NoError(t, os.WriteFile(want, got, 0o644))
				}
				wantData, err := os.ReadFile(want)
				require.NoError(t, err, "run with -update to write it")
				assert.Equal(t, string(wantData), string(got), "the example is not what the emitter writes: go test ./cmd/throttlebench -run TestEmitSonobuoy -update")

				var docs [][]byte
				for _, d := range bytes.Split(got, []byte("\n---\n")) {
					if hasContent(d) {
						docs = append(docs, d)
					}
				}
				require.Len(t, docs, 1, "one plugin per file")
				var p plugin
				require.NoError(t, yaml.UnmarshalStrict(docs[0], &p), "strict decoding:\n%s", docs[0])
				assert.Equal(t, "DaemonSet", p.Config.Driver)
				assert.Equal(t, "raw", p.Config.ResultFormat)
				assert.Equal(t, "throttlebench-example-c"+strconv.Itoa(i), p.Config.PluginName)
				assert.Empty(t, content.IsLabelValue(p.Config.PluginName), "Sonobuoy labels its pods with the plugin's name")
				assert.Equal(t, "plugin", p.Spec.Name)
				assert.Equal(t, []string{"run", "--cgroup", "current", "--format", "json", "--sonobuoy-results", "/tmp/sonobuoy/results"}, p.Spec.Args[:7])
				assert.Equal(t, p.Spec.Resources.Limits, p.Spec.Resources.Requests)
				require.Len(t, p.Spec.VolumeMounts, 1)
				assert.Equal(t, "/tmp/sonobuoy/results", p.Spec.VolumeMounts[0].MountPath)
				assert.Equal(t, "spec.nodeName", p.Spec.Env[0].ValueFrom.FieldRef.FieldPath)
				if c.sel == nil {
					assert.Nil(t, p.PodSpec)
				} else {
					// Sonobuoy reads which nodes owe a result from the
					// required node affinity, and the podSpec replaces its
					// default, which tolerates every taint.
					require.NotNil(t, p.PodSpec)
					assert.Empty(t, p.PodSpec.NodeSelector)
					require.NotNil(t, p.PodSpec.Affinity)
					require.NotNil(t, p.PodSpec.Affinity.NodeAffinity)
					req := p.PodSpec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
					require.NotNil(t, req)
					require.Len(t, req.NodeSelectorTerms, 1)
					got := map[string]string{}
					for _, e := range req.NodeSelectorTerms[0].MatchExpressions {
						assert.Equal(t, corev1.NodeSelectorOpIn, e.Operator)
						require.Len(t, e.Values, 1)
						got[e.Key] = e.Values[0]
					}
					assert.Equal(t, c.sel, got)
					assert.Equal(t, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, p.PodSpec.Tolerations)
				}
			}
		})
	}
}

// A Job's deadline: 30m by default, --timeout plus 10m when that is
// longer, or --job-deadline.
func TestEmitJobDeadline(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int64
	}{
		{nil, 1800},
		{[]string{"--timeout", "5m"}, 1800},
		{[]string{"--timeout", "45m"}, 3300},
		{[]string{"--job-deadline", "2h", "--timeout", "1h"}, 7200},
	} {
		code, stdout, stderr := runCLI(append([]string{"sweep", "--emit", "kubernetes", "--sweep-id", "example", "--cpus", "0.5"}, c.args...)...)
		require.Equal(t, exitOK, code, stderr)
		jobs := decodeJobs(t, []byte(stdout))
		require.Len(t, jobs, 1)
		require.NotNil(t, jobs[0].Spec.ActiveDeadlineSeconds)
		assert.Equal(t, c.want, *jobs[0].Spec.ActiveDeadlineSeconds, c.args)
	}
}

// The wait loop of the header, run by sh against a stand-in kubectl that
// answers what the API server would, call by call: it goes on waiting
// while a Job has neither finished condition (a trailing unfinished Job
// included, whose condition list is empty) or kubectl fails, and stops
// once every Job is Complete or Failed, which kubectl wait cannot say.
func TestEmitWaitLoop(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	code, stdout, stderr := runCLI("sweep", "--emit", "kubernetes", "--sweep-id", "example", "--cpus", "0.5", "--per-node", "--nodes", "a,b")
	require.Equal(t, exitOK, code, stderr)
	var loop string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "#     while ") {
			loop = strings.TrimPrefix(l, "#     ")
		}
	}
	require.NotEmpty(t, loop, "the header has a wait loop:\n%s", stdout)

	dir := t.TempDir()
	answers := []string{
		"tb-example-c0-n0:\ntb-example-c0-n1:\n",
		"tb-example-c0-n0:Complete\ntb-example-c0-n1:\n",
		"FAIL",
		"tb-example-c0-n0:Complete\ntb-example-c0-n1:SuccessCriteriaMet\n",
		"tb-example-c0-n0:Complete\ntb-example-c0-n1:FailureTarget\n",
		"tb-example-c0-n0:Complete\ntb-example-c0-n1:FailureTarget Failed\n",
		"never asked",
	}
	for i, a := range answers {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "answer"+strconv.Itoa(i+1)), []byte(a), 0o644))
	}
	fake := `#!/bin/sh
n=$(cat "$FAKE/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$FAKE/n"
echo "$*" > "$FAKE/args"
a=$(cat "$FAKE/answer$n")
[ "$a" = FAIL ] && exit 1
printf '%b' "$a"
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kubectl"), []byte(fake), 0o755))
	cmd := exec.Command(sh, "-c", "sleep() { :; }; c=0; "+loop)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "FAKE="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	n, err := os.ReadFile(filepath.Join(dir, "n"))
	require.NoError(t, err)
	assert.Equal(t, "6", strings.TrimSpace(string(n)), "asked until both Jobs had finished, one failed")
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	require.NoError(t, err)
	assert.Contains(t, string(args), "get job -l throttlebench/sweep=example,throttlebench/config=0 -o jsonpath=")
}

// -o is a directory of plugins whatever their number; one that holds
// another sweep's plugins is refused, the same sweep's are replaced, and
// one configuration without -o goes to stdout.
func TestEmitSonobuoyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugins")
	code, _, stderr := runCLI("sweep", "--emit", "sonobuoy", "--sweep-id", "one", "--cpus", "0.5", "-o", dir)
	require.Equal(t, exitOK, code, stderr)
	assert.FileExists(t, filepath.Join(dir, "throttlebench-one-c0.yaml"))
	code, _, stderr = runCLI("sweep", "--emit", "sonobuoy", "--sweep-id", "one", "--cpus", "0.5", "-o", dir)
	require.Equal(t, exitOK, code, "the same sweep again replaces its plugins: %s", stderr)

	code, _, stderr = runCLI("sweep", "--emit", "sonobuoy", "--sweep-id", "two", "--cpus", "0.5,1", "-o", dir)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "it holds throttlebench-one-c0.yaml, a plugin that is not one of sweep two's")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written, no temporary left")
	siblings, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	assert.Len(t, siblings, 1, "no temporary directory left beside it")

	code, stdout, stderr := runCLI("sweep", "--emit", "sonobuoy", "--sweep-id", "one", "--cpus", "0.5")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "plugin-name: throttlebench-one-c0")
}
