package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// emitOptions are sweep's flags for writing Kubernetes manifests or
// Sonobuoy plugins instead of running.
type emitOptions struct{ kube.Flags }

func (e *emitOptions) register(cmd *cobra.Command) {
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

// emitFlagsAlone refuses an emit flag given without --emit.
func (o *sweepOptions) emitFlagsAlone(changed func(string) bool) error {
	return kube.FlagsAlone(changed)
}

// emitted writes the sweep's plan through the emitter instead of running
// it. The plan is run's own (runFlags.plan: --cgroup-version, --timeout,
// --max-configs, the axes), with the settings that are the pods' rather
// than this machine's left to the emitter: the cgroup mode (the pods
// measure their own) and the output (a directory for sonobuoy).
func (o *sweepOptions) emitted(ctx context.Context, changed func(string) bool, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := o.emit.Check(changed, o.flagValue, o.run.mode); err != nil {
		return err
	}
	if o.run.argv != nil && !changed("image") {
		// The default image holds throttlebench alone (FROM scratch).
		return config.Usagef("image", "a command in the Jobs (%s) needs --image naming an image that holds it and throttlebench at %s", o.run.argv[0], kube.Entrypoint)
	}
	planned := *o.run
	planned.mode, planned.output = runner.ModeAuto, ""
	_, steps, err := planned.plan(ctx, config.Batch, changed, sweep.Formats, "", o.maxConfigs, nil, stderr)
	if err != nil {
		return err
	}
	var pass []string // run's settings, as the pods get them
	if changed("cgroup-version") {
		pass = append(pass, "--cgroup-version", o.run.version)
	}
	if changed("timeout") {
		pass = append(pass, "--timeout", o.run.timeout.String())
	}
	return kube.Emit(kube.Request{
		Flags: o.emit.Flags, Changed: changed, Stdin: stdin,
		Steps: steps, Given: o.run.given(changed), Pass: pass,
		Timeout: o.run.timeout, MaxConfigs: o.maxConfigs,
		Output: o.run.output, CommandLine: o.commandLine, Now: time.Now(),
		Skipped: func(c sweep.Config, why string) {
			fmt.Fprintf(stderr, "throttlebench: skipped %s: %s\n", sweep.Describe(c), why)
		},
	}, stdout)
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

// flagValue is a flag's value as given, for an error message.
func (o *sweepOptions) flagValue(name string) string {
	if v, ok := o.run.values[name]; ok {
		return *v
	}
	switch name {
	case "parent":
		return o.run.parent
	case "plot":
		return o.plot
	case "format":
		return o.run.format
	case "columns":
		return o.run.columns
	}
	return ""
}
