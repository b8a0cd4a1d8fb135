// Package kube writes a sweep as Kubernetes manifests: one batch/v1 Job per
// configuration (and per node with --per-node), or one Sonobuoy plugin per
// configuration. It writes YAML text only: no Kubernetes library is linked,
// kubectl does the talking. The manifests keep to stable batch/v1 and
// core/v1 fields; tests decode them strictly into the official API types.
package kube

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

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
	Index      int   // in the sweep, from 0
	Millicores int64 // the CPU limit, and the request
	// Args follow the entrypoint: run --cgroup current --format json and the
	// configuration's other flags.
	Args []string
	// Swept are the configuration's swept values (flag name, value), for
	// its labels.
	Swept []Label
}

// Options are what every Job of a sweep shares.
type Options struct {
	SweepID string
	Image   string
	Memory  string        // the memory request and limit, a quantity
	TTL     time.Duration // ttlSecondsAfterFinished; 0 leaves it out (kept until deleted)
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
	for _, line := range o.Header {
		b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
	}
	for _, r := range runs {
		if len(o.Nodes) == 0 {
			b.WriteString("---\n" + document(job(o, r, -1)))
			continue
		}
		for n := range o.Nodes {
			b.WriteString("---\n" + document(job(o, r, n)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// labels identify the sweep, the configuration (its index and its swept
// values) and, with --per-node, the node.
func labels(o Options, r Run, node int) mapping {
	m := mapping{{LabelApp, "throttlebench"}, {LabelSweep, o.SweepID}, {LabelConfig, strconv.Itoa(r.Index)}}
	for _, l := range r.Swept {
		m = append(m, field{labelPrefix + l.Key, labelValue(l.Value)})
	}
	if node >= 0 && LabelValue(o.Nodes[node]) == "" {
		// A node name longer than a label value allows (63) is left out;
		// the affinity still pins the Job.
		m = append(m, field{LabelNode, o.Nodes[node]})
	}
	return m
}

func job(o Options, r Run, node int) mapping {
	l := labels(o, r, node)
	spec := mapping{{"backoffLimit", 0}}
	if o.Deadline > 0 {
		spec = append(spec, field{"activeDeadlineSeconds", int64(o.Deadline / time.Second)})
	}
	if o.TTL > 0 {
		spec = append(spec, field{"ttlSecondsAfterFinished", int64(o.TTL / time.Second)})
	}
	// The pod calls no API: no token in it.
	pod := mapping{{"restartPolicy", "Never"}, {"automountServiceAccountToken", false}}
	if len(o.NodeSelector) > 0 {
		var sel mapping
		for _, s := range o.NodeSelector {
			sel = append(sel, field{s.Key, s.Value})
		}
		pod = append(pod, field{"nodeSelector", sel})
	}
	if node >= 0 {
		// matchFields on metadata.name, as a DaemonSet pins its pods: the
		// scheduler still checks the node's resources and taints, which
		// nodeName would skip.
		pod = append(pod, field{"affinity", mapping{{"nodeAffinity", mapping{
			{"requiredDuringSchedulingIgnoredDuringExecution", mapping{
				{"nodeSelectorTerms", []any{mapping{{"matchFields", []any{mapping{
					{"key", "metadata.name"}, {"operator", "In"}, {"values", strs(o.Nodes[node : node+1])},
				}}}}}},
			}},
		}}}})
	}
	pod = append(pod, field{"containers", []any{container(o, r, mapping{{"securityContext", securityContext}})}})
	spec = append(spec, field{"template", mapping{{"metadata", mapping{{"labels", l}}}, {"spec", pod}}})
	return mapping{
		{"apiVersion", "batch/v1"},
		{"kind", "Job"},
		{"metadata", mapping{{"name", JobName(o.SweepID, r.Index, node)}, {"labels", l}}},
		{"spec", spec},
	}
}

// container is the measuring container: requests = limits (Guaranteed QoS
// when it is the pod's only container, so the quota is exactly the limit),
// the node's name from the downward API, and no privileges: it only reads
// its own cgroup.
func container(o Options, r Run, extra mapping) mapping {
	res := mapping{{"cpu", CPUQuantity(r.Millicores)}, {"memory", o.Memory}}
	c := mapping{
		{"name", Container},
		{"image", o.Image},
		{"command", strs([]string{Entrypoint})},
		{"args", strs(r.Args)},
		{"env", []any{mapping{{"name", report.NodeEnv}, {"valueFrom", mapping{{"fieldRef", mapping{{"fieldPath", "spec.nodeName"}}}}}}}},
		{"resources", mapping{{"requests", res}, {"limits", res}}},
	}
	return append(c, extra...)
}

// securityContext is the restricted profile the Jobs' container runs
// under (Pod Security Standards, "restricted"); the Docker round trip runs
// the same as --user 65534 --read-only --cap-drop ALL
// --security-opt no-new-privileges.
var securityContext = mapping{
	{"allowPrivilegeEscalation", false},
	{"readOnlyRootFilesystem", true},
	{"runAsNonRoot", true},
	{"runAsUser", 65534},
	{"runAsGroup", 65534},
	{"capabilities", mapping{{"drop", strs([]string{"ALL"})}}},
	{"seccompProfile", mapping{{"type", "RuntimeDefault"}}},
}
