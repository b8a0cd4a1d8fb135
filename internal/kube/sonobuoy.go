package kube

import (
	"fmt"
	"io"
	"strings"
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

// WriteSonobuoyPlugin writes one configuration as a Sonobuoy plugin
// definition: the DaemonSet driver (one pod on every node, or on those
// --node-selector picks), raw results (the JSON file as it is).
func WriteSonobuoyPlugin(w io.Writer, o Options, r Run) error {
	var b strings.Builder
	for _, line := range o.Header {
		b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
	}
	var desc []string
	for _, l := range r.Swept {
		desc = append(desc, l.Key+"="+l.Value)
	}
	c := container(o, r, mapping{
		{"securityContext", securityContext},
		{"volumeMounts", []any{mapping{{"mountPath", SonobuoyResults}, {"name", "results"}}}},
	})
	// Sonobuoy's own name for the plugin container.
	c[0] = field{"name", "plugin"}
	m := mapping{
		{"sonobuoy-config", mapping{
			{"driver", "DaemonSet"},
			{"plugin-name", PluginName(o.SweepID, r.Index)},
			{"result-format", "raw"},
			{"description", "throttlebench sweep " + o.SweepID + ", configuration c" + fmt.Sprint(r.Index) + ": " + strings.Join(desc, " ") + ", measured on every node in its pod's own cgroup"},
		}},
		{"spec", c},
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
		var exprs []any
		for _, s := range o.NodeSelector {
			exprs = append(exprs, mapping{{"key", s.Key}, {"operator", "In"}, {"values", strs([]string{s.Value})}})
		}
		m = append(m, field{"podSpec", mapping{
			{"containers", []any{}},
			{"affinity", mapping{{"nodeAffinity", mapping{
				{"requiredDuringSchedulingIgnoredDuringExecution", mapping{
					{"nodeSelectorTerms", []any{mapping{{"matchExpressions", exprs}}}},
				}},
			}}}},
			{"tolerations", []any{mapping{{"operator", "Exists"}}}},
			{"restartPolicy", "Always"},
			{"serviceAccountName", "sonobuoy-serviceaccount"},
		}})
	}
	b.WriteString("---\n" + document(m))
	_, err := io.WriteString(w, b.String())
	return err
}
