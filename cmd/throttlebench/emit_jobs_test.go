package main

import (
	"bytes"
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
	assert.Contains(t, []string{"throttlebench:dev", "registry.example.com/my-go-app:1"}, c.Image, "the default, or command.yaml's own")
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
