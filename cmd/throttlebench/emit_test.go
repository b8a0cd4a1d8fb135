package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"

	"github.com/throttlebench/throttlebench/internal/golden"
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
		// Your own program (run -- CMD) from an image that holds it: the
		// command after --, the floor and ceil rules computed in the pod.
		{golden: "command.yaml", args: []string{"--cpus", "0.5,1.5", "--gomaxprocs", "floor,ceil", "--iterations", "10",
			"--image", "registry.example.com/my-go-app:1", "--", "/app/bench", "-n", "1000"}, jobs: 4,
			check: func(t *testing.T, jobs []batchv1.Job) {
				assert.Equal(t, []string{"run", "--cgroup", "current", "--format", "json", "--iterations", "10", "--gomaxprocs", "ceil", "--", "/app/bench", "-n", "1000"},
					jobs[3].Spec.Template.Spec.Containers[0].Args)
				assert.Equal(t, "registry.example.com/my-go-app:1", jobs[0].Spec.Template.Spec.Containers[0].Image)
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
			if *golden.Update {
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
