package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"sigs.k8s.io/yaml"

	"github.com/throttlebench/throttlebench/internal/golden"
)

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
			dir := filepath.Join("..", "..", "examples", "sonobuoy", c.golden)
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
			if *golden.Update {
				require.NoError(t, os.RemoveAll(dir))
				require.NoError(t, os.Mkdir(dir, 0o755))
			}
			for i, f := range files {
				got, err := os.ReadFile(f)
				require.NoError(t, err)
				want := filepath.Join(dir, filepath.Base(f))
				if *golden.Update {
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
