package main

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/options"
)

// registerEmit declares sweep's flags for writing Kubernetes manifests or
// Sonobuoy plugins instead of running.
func registerEmit(cmd *cobra.Command, e *options.Emit) {
	f := cmd.Flags()
	f.StringVar(&e.Emit, "emit", "", "write the sweep instead of running it: kubernetes (one batch/v1 Job per configuration), sonobuoy (one Sonobuoy plugin per configuration)")
	f.StringVar(&e.Image, "image", kube.DefaultImage, "--emit: the image the pods run (FROM scratch, the binary at "+kube.Entrypoint+")")
	f.StringVar(&e.PodMemory, "pod-memory", kube.DefaultPodMemory, "--emit: each pod's memory request and limit (Guaranteed QoS needs both), such as 256Mi")
	f.DurationVar(&e.TTL, "ttl", kube.DefaultTTL, "--emit kubernetes: ttlSecondsAfterFinished, how long a finished Job and its pod's log stay (0 = until deleted)")
	f.DurationVar(&e.Deadline, "job-deadline", kube.DefaultDeadline, "--emit kubernetes: activeDeadlineSeconds, how long a Job may take from its start, a pod that waits to be scheduled included, before it is failed and its pod stopped; --timeout plus 10m where that is longer than the default")
	f.StringVar(&e.SweepID, "sweep-id", "", "--emit: the id that labels and names every Job of the sweep (default: the time, 20060102-150405)")
	f.StringArrayVar(&e.NodeSelector, "node-selector", nil, "--emit: run only on nodes with this label, key=value (repeatable)")
	f.BoolVar(&e.PerNode, "per-node", false, "--emit kubernetes: one copy of every Job per node of --nodes or --nodes-from, pinned to it")
	f.StringVar(&e.Nodes, "nodes", "", "--per-node: the nodes, comma-separated")
	f.StringVar(&e.NodesFrom, "nodes-from", "", "--per-node: a file (- for stdin) of node names, one a line, such as kubectl get nodes -o name prints")
}

// sweepCommandLine restates the sweep's flags as given (in the order of their
// names, leaving out --output, which names the file itself), for the header
// of what it writes.
func sweepCommandLine(cmd *cobra.Command) string {
	parts := []string{"throttlebench", "sweep"}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "output" {
			return
		}
		vals := []string{f.Value.String()}
		if sa, ok := f.Value.(pflag.SliceValue); ok {
			vals = sa.GetSlice()
		}
		for _, v := range vals {
			switch {
			case f.Value.Type() == "bool" && v == "true":
				parts = append(parts, "--"+f.Name)
			case v == "" || strings.ContainsAny(v, " \"'$|&;<>()*?[]#~`\\") || strings.IndexFunc(v, notPrintable) >= 0:
				parts = append(parts, "--"+f.Name, strconv.Quote(v))
			default:
				parts = append(parts, "--"+f.Name, v)
			}
		}
	})
	return strings.Join(parts, " ")
}

// notPrintable are the characters a value in the header is quoted for: a
// line break would end the comment it is in.
func notPrintable(r rune) bool { return !unicode.IsPrint(r) }
