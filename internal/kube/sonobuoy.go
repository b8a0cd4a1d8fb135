package kube

import (
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// SonobuoyResults is where a Sonobuoy plugin's container writes its result
// and the done file naming it: Sonobuoy's default results directory,
// shared with its worker sidecar, which sends the file named in the done
// file to the aggregator once the done file appears. The aggregator keeps
// a DaemonSet plugin's files in plugins/<plugin>/results/<node>/ of the
// archive sonobuoy retrieve brings back.
const SonobuoyResults = "/tmp/sonobuoy/results"

// SonobuoyResultFile is the result's file name in SonobuoyResults.
const SonobuoyResultFile = "throttlebench.json"

// PluginName names a configuration's plugin: the directory of its results
// in the archive.
func PluginName(sweep string, config int) string {
	return fmt.Sprintf("throttlebench-%s-c%d", sweep, config)
}

// plugin is a Sonobuoy plugin definition, Sonobuoy's own format
// (pkg/plugin/manifest in vmware-tanzu/sonobuoy): its settings, the
// plugin's container, and optionally a podSpec that replaces Sonobuoy's
// default one.
type plugin struct {
	Config  pluginConfig     `json:"sonobuoy-config"`
	Spec    corev1.Container `json:"spec"`
	PodSpec *corev1.PodSpec  `json:"podSpec,omitempty"`
}

type pluginConfig struct {
	Driver       string `json:"driver"`
	PluginName   string `json:"plugin-name"`
	ResultFormat string `json:"result-format"`
	Description  string `json:"description"`
}

// WriteSonobuoyPlugin writes one configuration as a Sonobuoy plugin
// definition: the DaemonSet driver (one pod on every node, or on those
// --node-selector picks), raw results (the JSON file as it is).
func WriteSonobuoyPlugin(w io.Writer, o Options, r Run) error {
	var desc []string
	for _, l := range r.Swept {
		desc = append(desc, l.Key+"="+l.Value)
	}
	c := container(o, r)
	c.Name = "plugin" // Sonobuoy's own name for the plugin container
	c.VolumeMounts = []corev1.VolumeMount{{MountPath: SonobuoyResults, Name: "results"}}
	p := plugin{
		Config: pluginConfig{
			Driver:       "DaemonSet",
			PluginName:   PluginName(o.SweepID, r.Index),
			ResultFormat: "raw",
			Description: fmt.Sprintf("throttlebench sweep %s, configuration c%d: %s, measured on every node in its pod's own cgroup",
				o.SweepID, r.Index, strings.Join(desc, " ")),
		},
		Spec: c,
	}
	if len(o.NodeSelector) > 0 {
		// A podSpec of our own to choose the nodes. It replaces Sonobuoy's
		// default DaemonSet podSpec (Sonobuoy adds its worker container
		// and the results volume to it), so it restates what that default
		// holds that matters here: the service account, and a toleration
		// of every taint, so that every node Sonobuoy expects a result
		// from gets a pod. The nodes are chosen by required node affinity
		// rather than nodeSelector: Sonobuoy decides which nodes owe a
		// result from the affinity (every release since v0.16.4), and
		// only later releases also read nodeSelector; one expression (the
		// emitter refuses more), since older releases took the expressions
		// of a term as a union where the scheduler takes their
		// intersection.
		var exprs []corev1.NodeSelectorRequirement
		for _, s := range o.NodeSelector {
			exprs = append(exprs, corev1.NodeSelectorRequirement{Key: s.Key, Operator: corev1.NodeSelectorOpIn, Values: []string{s.Value}})
		}
		p.PodSpec = &corev1.PodSpec{
			Containers:         []corev1.Container{},
			Affinity:           nodeAffinity(corev1.NodeSelectorTerm{MatchExpressions: exprs}),
			Tolerations:        []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			RestartPolicy:      corev1.RestartPolicyAlways,
			ServiceAccountName: "sonobuoy-serviceaccount",
		}
	}
	var b strings.Builder
	writeHeader(&b, o.Header)
	if err := writeDocument(&b, p); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}
