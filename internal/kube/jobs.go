package kube

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Entrypoint is where the image keeps the binary (the Dockerfile's COPY).
const Entrypoint = "/throttlebench"

// Container is the name of the container that measures.
const Container = "throttlebench"

// Label keys, under one prefix.
const (
	LabelApp    = "app.kubernetes.io/name"
	LabelSweep  = "throttlebench/sweep"
	LabelConfig = "throttlebench/config" // the configuration's index in the sweep, from 0
	LabelNode   = "throttlebench/node"   // --per-node: the node the Job is pinned to
	labelPrefix = "throttlebench/"       // then each swept parameter's name
)

// Label is one key and value.
type Label struct{ Key, Value string }

// Run is one configuration of the sweep as a pod runs it.
type Run struct {
	Index int               // in the sweep, from 0
	CPU   resource.Quantity // the CPU limit, and the request: whole millicores
	// Args follow the entrypoint: run --cgroup current --format json and the
	// configuration's other flags.
	Args []string
	// Swept are the configuration's swept values (flag name, value), for
	// its labels.
	Swept []Label
}

// Options are what every Job of a sweep shares.
type Options struct {
	// Emit is what is written: Kubernetes (Jobs) or Sonobuoy (plugins).
	Emit    string
	SweepID string
	Image   string
	Memory  resource.Quantity // the memory request and limit
	TTL     time.Duration     // ttlSecondsAfterFinished; 0 leaves it out (kept until deleted)
	// Deadline is activeDeadlineSeconds: a Job still running (or its pod
	// still waiting to be scheduled) then is failed and its pod stopped;
	// 0 leaves it out.
	Deadline time.Duration
	// NodeSelector is the pods' nodeSelector, in the order given.
	NodeSelector []Label
	// Nodes, when set, make one copy of every Job per node, pinned to it
	// with node affinity (--per-node).
	Nodes []string
	// Header are comment lines written first.
	Header []string
}

// JobName names a configuration's Job; node is the node's index with
// --per-node, -1 without.
func JobName(sweep string, config, node int) string {
	name := fmt.Sprintf("tb-%s-c%d", sweep, config)
	if node >= 0 {
		name += fmt.Sprintf("-n%d", node)
	}
	return name
}

// WriteJobs writes the Jobs of runs as one YAML stream: configuration by
// configuration, and within one, node by node.
func WriteJobs(w io.Writer, o Options, runs []Run) error {
	var b strings.Builder
	writeHeader(&b, o.Header)
	for _, r := range runs {
		for n := range max(1, len(o.Nodes)) {
			node := n
			if len(o.Nodes) == 0 {
				node = -1
			}
			if err := writeDocument(&b, job(o, r, node)); err != nil {
				return err
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeader writes the comment lines the user reads first.
func writeHeader(b *strings.Builder, header []string) {
	for _, line := range header {
		b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
	}
}

// writeDocument appends one object to a YAML stream.
func writeDocument(b *strings.Builder, v any) error {
	doc, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("write a manifest: %w", err)
	}
	b.WriteString("---\n")
	b.Write(doc)
	return nil
}

// labels identify the sweep, the configuration (its index and its swept
// values) and, with --per-node, the node.
func labels(o Options, r Run, node int) map[string]string {
	m := map[string]string{LabelApp: "throttlebench", LabelSweep: o.SweepID, LabelConfig: strconv.Itoa(r.Index)}
	for _, l := range r.Swept {
		if v := labelValue(l.Value); len(content.IsLabelValue(v)) == 0 {
			m[labelPrefix+l.Key] = v
		}
	}
	if node >= 0 && len(content.IsLabelValue(o.Nodes[node])) == 0 {
		// A node name that is no label value (longer than 63) is left
		// out; the affinity still pins the Job.
		m[LabelNode] = o.Nodes[node]
	}
	return m
}

func job(o Options, r Run, node int) batchv1.Job {
	l := labels(o, r, node)
	pod := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		// The pod calls no API: no token in it.
		AutomountServiceAccountToken: new(false),
		Containers:                   []corev1.Container{container(o, r)},
	}
	if len(o.NodeSelector) > 0 {
		pod.NodeSelector = map[string]string{}
		for _, s := range o.NodeSelector {
			pod.NodeSelector[s.Key] = s.Value
		}
	}
	if node >= 0 {
		// matchFields on metadata.name, as a DaemonSet pins its pods: the
		// scheduler still checks the node's resources and taints, which
		// nodeName would skip.
		pod.Affinity = nodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{o.Nodes[node]}},
		}})
	}
	spec := batchv1.JobSpec{
		BackoffLimit: new(int32(0)),
		Template:     corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l}, Spec: pod},
	}
	if o.Deadline > 0 {
		spec.ActiveDeadlineSeconds = new(int64(o.Deadline / time.Second))
	}
	if o.TTL > 0 {
		spec.TTLSecondsAfterFinished = new(int32(o.TTL / time.Second))
	}
	return batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: JobName(o.SweepID, r.Index, node), Labels: l},
		Spec:       spec,
	}
}

// nodeAffinity requires one term of a node.
func nodeAffinity(term corev1.NodeSelectorTerm) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}},
	}}
}

// container is the measuring container: requests = limits (Guaranteed QoS
// when it is the pod's only container, so the quota is exactly the limit),
// the node's name from the downward API, and no privileges: it only reads
// its own cgroup. It runs under the restricted profile (Pod Security
// Standards, "restricted"); the Docker round trip runs the same as --user
// 65534 --read-only --cap-drop ALL --security-opt no-new-privileges.
func container(o Options, r Run) corev1.Container {
	res := corev1.ResourceList{corev1.ResourceCPU: r.CPU, corev1.ResourceMemory: o.Memory}
	return corev1.Container{
		Name:    Container,
		Image:   o.Image,
		Command: []string{Entrypoint},
		Args:    r.Args,
		Env: []corev1.EnvVar{{Name: report.NodeEnv, ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"},
		}}},
		Resources: corev1.ResourceRequirements{Requests: res, Limits: res},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: new(false),
			ReadOnlyRootFilesystem:   new(true),
			RunAsNonRoot:             new(true),
			RunAsUser:                new(int64(65534)),
			RunAsGroup:               new(int64(65534)),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
}
