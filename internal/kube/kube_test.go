package kube

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"sigs.k8s.io/yaml"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// decodeJobs decodes a YAML stream strictly (an unknown or misplaced field
// is an error) into batch/v1 Jobs, skipping the header's comments.
func decodeJobs(t *testing.T, data []byte) []batchv1.Job {
	t.Helper()
	var jobs []batchv1.Job
	for _, doc := range bytes.Split(data, []byte("\n---\n"))[1:] {
		var j batchv1.Job
		require.NoError(t, yaml.UnmarshalStrict(doc, &j), "%s", doc)
		jobs = append(jobs, j)
	}
	return jobs
}

// Every string comes back from the manifest as the same string, whatever
// a YAML reader would make of it unquoted: numbers, bools of YAML 1.1,
// nulls, dates, indicators, escapes, newlines.
func TestStringsRoundTrip(t *testing.T) {
	odd := []string{
		"run", "--cgroup", "-", "0.25", "20", "1e3", ".5", ".inf", "0x1F", "0o17", "+1", "1_000", "12:30",
		"2024-01-01", "20240101-120000", "yes", "No", "ON", "off", "y", "n", "true", "False", "null", "~", "",
		"throttlebench:dev", "a: b", "#x", "*x", "&x", "!x", "%x", "@x", "`x", "|", ">", "[x]", "{x}", "x,y",
		"100µs", "line\nbreak", "tab\there", `quote"d`, "back\\slash", "  spaced  ", "---", "...", "\x01", "é\u2028",
	}
	o := Options{SweepID: "x", Image: "registry.example.com/throttlebench:1e3", Memory: resource.MustParse("256Mi"),
		Header: []string{"a header: with # and ---", ""}}
	var b bytes.Buffer
	require.NoError(t, WriteJobs(&b, o, []Run{{CPU: resource.MustParse("1"), Args: odd}}))
	assert.True(t, strings.HasPrefix(b.String(), "# a header: with # and ---\n#\n---\n"), "the header first, as comments:\n%s", b.String())
	jobs := decodeJobs(t, b.Bytes())
	require.Len(t, jobs, 1)
	assert.Equal(t, odd, jobs[0].Spec.Template.Spec.Containers[0].Args)
	assert.Equal(t, o.Image, jobs[0].Spec.Template.Spec.Containers[0].Image)
}

// Node names are Kubernetes' own: exactly what apimachinery takes for a
// DNS subdomain, a dotted part over 63 characters included.
func TestNodeNameIsKubernetesRule(t *testing.T) {
	for _, s := range []string{
		"ip-10-0-1-23.ec2.internal", "gke-c-pool-a-1b2c3d4e-x9z8", strings.Repeat("a", 64) + ".example.com",
		strings.Repeat("a", 253), strings.Repeat("a", 254), "", "Node", "a_b", "-a", "a-", "a..b", "a.", "node/a", "a\xff",
	} {
		assert.Equal(t, len(content.IsDNS1123Subdomain(s)) == 0, NodeName(s) == "", "%q: %s", s, NodeName(s))
	}
}

// A sweep id is a DNS label short enough that every name made of it (the
// Jobs', the plugins', up to the largest sweep on the most nodes) is a
// label value.
func TestSweepID(t *testing.T) {
	longest := 0
	for n := 1; n <= 63; n++ {
		id := strings.Repeat("a", n)
		if SweepID(id) != "" {
			break
		}
		longest = n
		assert.Empty(t, content.IsLabelValue(JobName(id, sweep.MaxConfigs-1, MaxNodes-1)))
		assert.Empty(t, content.IsLabelValue(PluginName(id, sweep.MaxConfigs-1)))
	}
	assert.NotZero(t, longest)
	assert.Contains(t, SweepID(strings.Repeat("a", longest+1)), "too long")
	assert.Empty(t, SweepID("20240101-120000"))
	for _, bad := range []string{"", "x_y", "Big", "-x", "a.b"} {
		assert.NotEmpty(t, SweepID(bad), "%q", bad)
		assert.Contains(t, SweepID(bad), content.IsDNS1123Label(bad)[0], "%q: apimachinery's reason", bad)
	}
}

// Every label the manifests carry is one Kubernetes takes: the keys of
// every parameter a sweep may vary, and the values made of odd ones.
func TestLabels(t *testing.T) {
	for _, p := range config.Params {
		assert.Empty(t, content.IsLabelKey(labelPrefix+p.Name), p.Name)
	}
	for _, k := range []string{LabelApp, LabelSweep, LabelConfig, LabelNode} {
		assert.Empty(t, content.IsLabelKey(k), k)
	}
	assert.Equal(t, "500us", labelValue("500µs"))
	assert.Equal(t, "1m0s", labelValue("1m0s"))
	assert.Equal(t, "a_b", labelValue("a b"))
	assert.Equal(t, "x", labelValue("-x-"))
	for _, v := range []string{"0.25", "500µs", "--", "é", "a\xffb", "_a_", strings.Repeat("x", 70) + "-", "µ", ""} {
		assert.Empty(t, content.IsLabelValue(labelValue(v)), "%q → %q", v, labelValue(v))
	}
	// A node name that is no label value leaves its label out; the
	// affinity still pins the Job.
	long := strings.Repeat("n", 64) + ".example.com"
	o := Options{SweepID: "x", Nodes: []string{"node-a", long}}
	assert.Equal(t, "node-a", labels(o, Run{}, 0)[LabelNode])
	assert.NotContains(t, labels(o, Run{}, 1), LabelNode)
	j := job(o, Run{}, 1)
	assert.Equal(t, []string{long}, j.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values)
}

// A pod's CPU limit is whole millicores, written as Kubernetes writes the
// quantity.
func TestCPULimit(t *testing.T) {
	for cpus, want := range map[string]string{"0.25": "250m", "1": "1", "1.5": "1500m", "0.001": "1m", "2": "2", "1e-3": "1m"} {
		q, ok := CPULimit(cpus)
		require.True(t, ok, cpus)
		assert.Equal(t, want, q.String())
		assert.Zero(t, q.Cmp(resource.MustParse(cpus)), "%s is the quantity given", cpus)
	}
	for _, cpus := range []string{"0.1234", "0.0005", "0", "-1", "half", ""} {
		_, ok := CPULimit(cpus)
		assert.False(t, ok, cpus)
	}
}
