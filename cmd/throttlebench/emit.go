package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// What --emit writes instead of running the sweep.
const (
	emitKubernetes = "kubernetes"
	emitSonobuoy   = "sonobuoy"
)

// Defaults of the emitted pods.
const (
	defaultImage     = "throttlebench:dev"
	defaultPodMemory = "256Mi"
	defaultTTL       = 24 * time.Hour
	maxTTL           = 30 * 24 * time.Hour
	// defaultDeadline is a Job's activeDeadlineSeconds unless --timeout
	// asks for longer: a pod that does not start, or does not end, is
	// stopped then, so that the next configuration never shares its node.
	defaultDeadline = 30 * time.Minute
	// deadlineMargin is what a Job's deadline leaves beyond --timeout for
	// pulling the image and starting the pod.
	deadlineMargin = 10 * time.Minute
	maxDeadline    = maxTimeout + deadlineMargin
	// minPodMemory holds the Go runtime, the parent and its workload child.
	minPodMemory = 32 << 20
	// processMemory is what a run needs besides memtouch's buffers.
	processMemory = 64 << 20
	maxNodes      = 10000
)

// emitOptions are sweep's flags for writing Kubernetes manifests or
// Sonobuoy plugins instead of running.
type emitOptions struct {
	emit         string
	image        string
	podMemory    string
	ttl          time.Duration
	deadline     time.Duration
	sweepID      string
	nodeSelector []string
	perNode      bool
	nodes        string
	nodesFrom    string
}

// emitOnly are the flags that mean something only with --emit.
var emitOnly = []string{"image", "pod-memory", "ttl", "job-deadline", "sweep-id", "node-selector", "per-node", "nodes", "nodes-from"}

func (e *emitOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.emit, "emit", "", "write the sweep instead of running it: kubernetes (one batch/v1 Job per configuration), sonobuoy (one Sonobuoy plugin per configuration)")
	f.StringVar(&e.image, "image", defaultImage, "--emit: the image the pods run (FROM scratch, the binary at "+kube.Entrypoint+")")
	f.StringVar(&e.podMemory, "pod-memory", defaultPodMemory, "--emit: each pod's memory request and limit (Guaranteed QoS needs both), such as 256Mi")
	f.DurationVar(&e.ttl, "ttl", defaultTTL, "--emit kubernetes: ttlSecondsAfterFinished, how long a finished Job and its pod's log stay (0 = until deleted)")
	f.DurationVar(&e.deadline, "job-deadline", defaultDeadline, "--emit kubernetes: activeDeadlineSeconds, how long a Job may take from its start, a pod that waits to be scheduled included, before it is failed and its pod stopped (default 30m, or --timeout plus 10m when that is longer)")
	f.StringVar(&e.sweepID, "sweep-id", "", "--emit: the id that labels and names every Job of the sweep (default: the time, 20060102-150405)")
	f.StringArrayVar(&e.nodeSelector, "node-selector", nil, "--emit: run only on nodes with this label, key=value (repeatable)")
	f.BoolVar(&e.perNode, "per-node", false, "--emit kubernetes: one copy of every Job per node of --nodes or --nodes-from, pinned to it")
	f.StringVar(&e.nodes, "nodes", "", "--per-node: the nodes, comma-separated")
	f.StringVar(&e.nodesFrom, "nodes-from", "", "--per-node: a file (- for stdin) of node names, one a line, such as kubectl get nodes -o name prints")
}

// emitFlagsAlone refuses an emit flag given without --emit: it would
// change nothing in a sweep that runs here.
func (o *sweepOptions) emitFlagsAlone(changed func(string) bool) error {
	if changed("emit") {
		return nil
	}
	for _, name := range emitOnly {
		if changed(name) {
			return usagef("--%s applies only with --emit (kubernetes or sonobuoy): the sweep runs here otherwise", name)
		}
	}
	return nil
}

// emitRefused are the sweep's flags that a pod cannot express, with why
// and what to do instead.
var emitRefused = []struct{ flag, why string }{
	{"period", "a pod's CFS period is the kubelet's (cpuCFSQuotaPeriod, 100ms by default), the same for every pod on the node; drop --period, or set cpuCFSQuotaPeriod in the kubelet's configuration"},
	{"quota", "a pod's quota is its CPU limit × the kubelet's period; give the limit as --cpus"},
	{"burst", "a pod has no CFS burst setting (the kubelet leaves cpu.cfs_burst_us and cpu.max.burst at 0); drop --burst, or measure burst on a host with sweep --burst"},
	{"cpuset", "a pod's CPUs are the kubelet's CPU manager's (its static policy gives whole CPUs to Guaranteed pods); drop --cpuset"},
	{"parent", "each pod measures its own container's cgroup (--cgroup current); drop --parent"},
	{"plot", "nothing runs here; plot the collected results instead: throttlebench sweep --from results.json --plot FILE"},
	{"format", "the pods always write JSON, for collect; format the collected results instead: throttlebench sweep --from results.json --format FORMAT"},
}

// emitted runs the sweep's plan through the emitter instead of the runner.
func (o *sweepOptions) emitted(changed func(string) bool, stdin io.Reader, stdout, stderr io.Writer) error {
	e := o.emit
	if err := checkChoice("emit", e.emit, []string{emitKubernetes, emitSonobuoy}); err != nil {
		return err
	}
	for _, r := range emitRefused {
		if changed(r.flag) {
			return usagef("--%s %q cannot be emitted: %s", r.flag, o.flagValue(r.flag), r.why)
		}
	}
	if o.run.mode == runner.ModeCreate {
		return usagef("--cgroup %q cannot be emitted: each pod measures the cgroup its CPU limit gives it (--cgroup current); drop --cgroup", o.run.mode)
	}
	if err := checkChoice("cgroup", o.run.mode, []string{runner.ModeAuto, runner.ModeCurrent}); err != nil {
		return err
	}
	if err := checkChoice("cgroup-version", o.run.version, []string{"auto", "1", "2"}); err != nil {
		return err
	}
	if o.run.timeout < 0 || o.run.timeout > maxTimeout {
		return usagef("invalid --timeout %v: want a duration between 0 (no limit) and %v", o.run.timeout, maxTimeout)
	}
	if !changed("cpus") {
		return usagef("--emit %s needs --cpus: the pods' CPU limits are what is measured, such as --cpus 0.25,0.5,1", e.emit)
	}
	opts, err := e.options(changed, stdin, o.run.timeout)
	if err != nil {
		return err
	}
	memory, _ := kube.Bytes(opts.Memory)

	var given []string // the parameters given, in the order of config.Params
	values := o.run.given(changed)
	for _, p := range config.ParamsFor(config.Batch) {
		if _, ok := values[p.Name]; ok && p.Name != "cpus" {
			given = append(given, p.Name)
		}
	}
	spec := sweep.Spec{Command: config.Batch, Axes: map[string]string{}, Fixed: map[string]string{}, MaxConfigs: o.maxConfigs,
		Options: func(c config.Config) (runner.Options, error) {
			return runner.Options{}, podFits(c, memory, opts.Memory)
		}}
	for name, v := range values {
		if p, _ := config.Lookup(name); p.Axis {
			spec.Axes[name] = v
		} else {
			spec.Fixed[name] = v
		}
	}
	if o.maxConfigs < 1 || o.maxConfigs > sweep.MaxConfigs {
		return usagef("invalid --max-configs %d: must be between 1 and %d", o.maxConfigs, sweep.MaxConfigs)
	}
	steps, err := sweep.Plan(spec)
	if err != nil {
		return err
	}

	var runs []kube.Run
	for i, st := range steps {
		if st.Skip != "" {
			fmt.Fprintf(stderr, "throttlebench: skipped %s: %s\n", sweep.Describe(st.Config), st.Skip)
			continue
		}
		cpus := st.Config.Get("cpus")
		if cpus == "" {
			cpus = spec.Fixed["cpus"]
		}
		f, _ := strconv.ParseFloat(cpus, 64)
		m, ok := kube.Millicores(f)
		if !ok {
			return config.Usagef("cpus", "invalid --cpus %q for --emit: a pod's CPU limit is whole millicores (steps of 0.001 CPUs)", cpus)
		}
		r := kube.Run{Index: i, Millicores: m, Args: []string{"run", "--cgroup", runner.ModeCurrent, "--format", "json"}}
		if e.emit == emitSonobuoy {
			r.Args = append(r.Args, "--sonobuoy-results", kube.SonobuoyResults)
		}
		for _, name := range given {
			v, ok := st.Config.Get(name), false
			if v != "" {
				ok = true
			} else {
				v, ok = spec.Fixed[name]
			}
			if !ok {
				continue
			}
			if p, _ := config.Lookup(name); p.Kind == config.Bool {
				r.Args = append(r.Args, "--"+name+"="+v)
			} else {
				r.Args = append(r.Args, "--"+name, v)
			}
		}
		if changed("cgroup-version") {
			r.Args = append(r.Args, "--cgroup-version", o.run.version)
		}
		if changed("timeout") {
			r.Args = append(r.Args, "--timeout", o.run.timeout.String())
		}
		for _, p := range st.Config {
			r.Swept = append(r.Swept, kube.Label{Key: p.Flag, Value: p.Value})
		}
		if len(r.Swept) == 0 {
			r.Swept = []kube.Label{{Key: "cpus", Value: cpus}}
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return fmt.Errorf("%w (%d): nothing to emit", sweep.ErrAllSkipped, len(steps))
	}
	if n := len(runs) * max(1, len(opts.Nodes)); n > o.maxConfigs {
		return usagef("invalid --max-configs %d: %d configurations on %d nodes are %d Jobs; narrow the lists, or give --max-configs %d",
			o.maxConfigs, len(runs), len(opts.Nodes), n, n)
	}
	if e.emit == emitSonobuoy {
		return writeSonobuoy(o.run.output, stdout, opts, runs, o.commandLine)
	}
	if err := checkOutput("output", o.run.output); err != nil {
		return err
	}
	opts.Header = jobsHeader(opts, runs, o.run.output, o.commandLine)
	return writeOutput(o.run.output, stdout, func(w io.Writer) error { return kube.WriteJobs(w, opts, runs) })
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
			case v == "" || strings.ContainsAny(v, " \t\"'$|&;<>()*?[]#~`\\"):
				parts = append(parts, "--"+f.Name, strconv.Quote(v))
			default:
				parts = append(parts, "--"+f.Name, v)
			}
		}
	})
	return strings.Join(parts, " ")
}

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
	}
	return ""
}

// podFits refuses a configuration whose memtouch buffers would not fit the
// pod's memory limit: the pod would be OOM-killed, its result lost.
func podFits(c config.Config, memory int64, quantity string) error {
	if c.Workload != "memtouch" {
		return nil
	}
	need := int64(c.Workers)*int64(c.Buffer) + processMemory
	if need > memory {
		return config.Usagef("pod-memory", "invalid --pod-memory %s: memtouch with --workers %d and --buffer %d needs about %d MiB (a buffer per worker and 64 MiB for the process); give --pod-memory %dMi or more",
			quantity, c.Workers, c.Buffer, need>>20, (need+(1<<20)-1)>>20)
	}
	return nil
}

// options checks the emit flags and the node list.
func (e *emitOptions) options(changed func(string) bool, stdin io.Reader, timeout time.Duration) (kube.Options, error) {
	o := kube.Options{Image: e.image, Memory: e.podMemory, TTL: e.ttl, SweepID: e.sweepID}
	if e.image == "" || strings.ContainsAny(e.image, " \t\r\n") {
		return o, usagef("invalid --image %q: want an image reference such as registry.example.com/throttlebench:dev", e.image)
	}
	b, err := kube.Bytes(e.podMemory)
	if err != nil || b < minPodMemory {
		return o, usagef("invalid --pod-memory %q: want a quantity of at least 32Mi, such as 256Mi or 1Gi", e.podMemory)
	}
	if e.ttl != 0 && (e.ttl < time.Minute || e.ttl > maxTTL) {
		return o, usagef("invalid --ttl %v: want 0 (keep finished Jobs until deleted) or between 1m and %v; a Job deleted before collect takes its pod's log with it", e.ttl, maxTTL)
	}
	if e.ttl%time.Second != 0 {
		return o, usagef("invalid --ttl %v: want whole seconds", e.ttl)
	}
	o.Deadline = e.deadline
	if !changed("job-deadline") {
		o.Deadline = max(defaultDeadline, timeout+deadlineMargin)
	} else if e.deadline < time.Minute || e.deadline > maxDeadline || e.deadline%time.Second != 0 {
		return o, usagef("invalid --job-deadline %v: want whole seconds between 1m and %v", e.deadline, maxDeadline)
	} else if timeout > 0 && e.deadline <= timeout {
		return o, usagef("invalid --job-deadline %v: not longer than --timeout %v; the pod would be stopped before the run's own limit, with its result lost (give --job-deadline %v or more)", e.deadline, timeout, timeout+deadlineMargin)
	}
	if !changed("sweep-id") {
		o.SweepID = time.Now().UTC().Format("20060102-150405")
	} else if why := kube.SweepID(e.sweepID); why != "" {
		return o, usagef("invalid --sweep-id %q: %s", e.sweepID, why)
	}
	for _, s := range e.nodeSelector {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return o, usagef("invalid --node-selector %q: want key=value, such as cloud.google.com/gke-nodepool=pool-a", s)
		}
		if why := kube.LabelKey(k); why != "" {
			return o, usagef("invalid --node-selector %q: %s", s, why)
		}
		if why := kube.LabelValue(v); why != "" {
			return o, usagef("invalid --node-selector %q: %s", s, why)
		}
		for _, prev := range o.NodeSelector {
			if prev.Key == k {
				return o, usagef("invalid --node-selector %q: the label %s is given twice (also %s=%s); a node has one value per label", s, k, k, prev.Value)
			}
		}
		o.NodeSelector = append(o.NodeSelector, kube.Label{Key: k, Value: v})
	}
	if e.emit == emitSonobuoy {
		for _, name := range []string{"per-node", "nodes", "nodes-from"} {
			if changed(name) {
				return o, usagef("--%s applies to --emit kubernetes: a Sonobuoy DaemonSet plugin runs on every node already; choose the nodes with --node-selector", name)
			}
		}
		if changed("ttl") {
			return o, usagef("--ttl applies to --emit kubernetes: Sonobuoy deletes its plugins' pods itself (sonobuoy delete)")
		}
		if changed("job-deadline") {
			return o, usagef("--job-deadline applies to --emit kubernetes: a Sonobuoy plugin's time is sonobuoy run's --timeout")
		}
		if len(o.NodeSelector) > 1 {
			return o, usagef("--emit sonobuoy takes one --node-selector (%d given): Sonobuoy releases before 2024 expect a result from every node that matches any one of a plugin's labels, while only nodes that match all get a pod; label the pool with one label, or use --emit kubernetes", len(o.NodeSelector))
		}
		return o, nil
	}
	switch {
	case e.perNode && changed("nodes") && changed("nodes-from"):
		return o, usagef("--nodes %q conflicts with --nodes-from %q: give one of them", e.nodes, e.nodesFrom)
	case e.perNode && !changed("nodes") && !changed("nodes-from"):
		return o, usagef("--per-node needs the nodes: --nodes a,b,c or --nodes-from FILE (kubectl get nodes -o name -l KEY=VALUE > FILE); emit cannot ask the cluster")
	case !e.perNode && changed("nodes"):
		return o, usagef("--nodes %q applies with --per-node", e.nodes)
	case !e.perNode && changed("nodes-from"):
		return o, usagef("--nodes-from %q applies with --per-node", e.nodesFrom)
	case !e.perNode:
		return o, nil
	}
	var names []string
	flag, value := "nodes", e.nodes
	if changed("nodes") {
		names = strings.FieldsFunc(e.nodes, func(r rune) bool { return r == ',' || r == ' ' })
	} else {
		flag, value = "nodes-from", e.nodesFrom
		if names, err = readNodes(e.nodesFrom, stdin); err != nil {
			return o, usagef("invalid --nodes-from %q: %v", e.nodesFrom, err)
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimPrefix(n, "node/")
		if why := kube.NodeName(n); why != "" {
			return o, usagef("invalid --%s %q: node %q: %s", flag, value, n, why)
		}
		if !seen[n] {
			seen[n] = true
			o.Nodes = append(o.Nodes, n)
		}
	}
	switch {
	case len(o.Nodes) == 0:
		return o, usagef("invalid --%s %q: no node named", flag, value)
	case len(o.Nodes) > maxNodes:
		return o, usagef("invalid --%s %q: %d nodes, at most %d", flag, value, len(o.Nodes), maxNodes)
	}
	return o, nil
}

// readNodes reads node names, one a line ("node/NAME" as kubectl get nodes
// -o name prints them, or NAME); blank lines and # comments are skipped.
func readNodes(path string, stdin io.Reader) ([]string, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var out []string
	sc := bufio.NewScanner(io.LimitReader(r, 16<<20))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out, sc.Err()
}

// jobsHeader says what the file holds and how to run it: one
// configuration at a time, so that no two measurements share a node.
func jobsHeader(o kube.Options, runs []kube.Run, output, commandLine string) []string {
	file := "jobs.yaml"
	if output != "" {
		file = filepath.Base(output)
	}
	nodes := ""
	jobs := len(runs)
	if len(o.Nodes) > 0 {
		nodes = fmt.Sprintf(" × %d nodes", len(o.Nodes))
		jobs *= len(o.Nodes)
	}
	var idx []string
	for _, r := range runs {
		idx = append(idx, strconv.Itoa(r.Index))
	}
	sel := kube.LabelSweep + "=" + o.SweepID
	return []string{
		fmt.Sprintf("throttlebench sweep --emit kubernetes: sweep %s, %d configurations%s = %d Jobs", o.SweepID, len(runs), nodes, jobs),
		"generated by: " + commandLine,
		"Apply one configuration at a time, so that no two measurements share a node, waiting until each of its Jobs",
		fmt.Sprintf("has completed or failed (a Job still running, or still waiting for a node, %v after its start is failed, its pod stopped):", o.Deadline),
		"  for c in " + strings.Join(idx, " ") + "; do",
		"    kubectl apply -f " + file + " -l " + sel + "," + kube.LabelConfig + "=$c || break",
		"    " + waitLoop(sel+","+kube.LabelConfig+"=$c"),
		"  done",
		"  kubectl logs -l " + sel + " --prefix --tail=-1 --ignore-errors | throttlebench collect - -o results.json",
	}
}

// waitLoop is the shell loop that waits until every Job the selector
// picks has finished, complete or failed: kubectl wait takes one
// condition, and waiting for complete alone would block on a failed Job
// (backoffLimit 0) until its timeout. It asks again while a Job has
// neither condition, or while kubectl cannot tell. Each line starts with
// the Job's name, so that an unfinished Job's line is not empty: the
// shell drops trailing empty lines from a command's output.
func waitLoop(selector string) string {
	return `while s=$(kubectl get job -l ` + selector + ` -o jsonpath='{range .items[*]}{.metadata.name}:{.status.conditions[?(@.status=="True")].type}{"\n"}{end}') || s=unknown; printf '%s\n' "$s" | grep -qvwE 'Complete|Failed'; do sleep 10; done`
}

// sonobuoyHeader says what a plugin file holds and how to run it: one
// configuration per Sonobuoy run, since a run's plugins run at once on
// every node and would share its CPUs.
func sonobuoyHeader(o kube.Options, r kube.Run, configs int, commandLine, file string) []string {
	return []string{
		fmt.Sprintf("throttlebench sweep --emit sonobuoy: sweep %s, configuration c%d (of %d): a plugin that measures it on every node", o.SweepID, r.Index, configs),
		"generated by: " + commandLine,
		"Run one plugin at a time (the plugins of one Sonobuoy run run at once, sharing each node's CPUs):",
		"  sonobuoy run --plugin " + file + " --wait && sonobuoy retrieve && sonobuoy delete --wait",
		"then: throttlebench collect *_sonobuoy_*.tar.gz -o results.json",
	}
}

// writeSonobuoy writes one plugin definition per configuration into the
// directory output names (made if missing), whatever their number, so
// that plugins/*.yaml is the sweep's plugins; to stdout when there is one
// configuration and no output. The plugins are written whole into a
// temporary directory beside it first and moved in only when all are:
// an error leaves no part of the sweep behind. A directory holding
// throttlebench plugins that are not this sweep's is refused: a loop over
// its files would run them too.
func writeSonobuoy(output string, stdout io.Writer, o kube.Options, runs []kube.Run, commandLine string) error {
	if output == "" {
		if len(runs) > 1 {
			return usagef("--emit sonobuoy writes one plugin file per configuration (%d here): give --output a directory", len(runs))
		}
		o.Header = sonobuoyHeader(o, runs[0], len(runs), commandLine, "plugin.yaml")
		return kube.WriteSonobuoyPlugin(stdout, o, runs[0])
	}
	names := map[string]bool{}
	for _, r := range runs {
		names[kube.PluginName(o.SweepID, r.Index)+".yaml"] = true
	}
	exists := false
	if fi, err := os.Stat(output); err == nil && !fi.IsDir() {
		return usagef("invalid --output %q: --emit sonobuoy writes its plugins, one file per configuration, into a directory; this is a file", output)
	} else if err == nil {
		exists = true
		entries, err := os.ReadDir(output)
		if err != nil {
			return usagef("invalid --output %q: %v", output, pathErr(err))
		}
		for _, e := range entries {
			if n := e.Name(); strings.HasPrefix(n, "throttlebench-") && strings.HasSuffix(n, ".yaml") && !names[n] {
				return usagef("invalid --output %q: it holds %s, a plugin that is not one of sweep %s's; a loop over its files would run it too: give a new or empty directory", output, n, o.SweepID)
			}
		}
	} else if err := checkOutput("output", output); err != nil {
		// A new directory in an existing one.
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(output)), "."+filepath.Base(output)+".*.tmp")
	if err != nil {
		return usagef("invalid --output %q: %v", output, pathErr(err))
	}
	defer os.RemoveAll(tmp) // what was not moved into place
	for _, r := range runs {
		name := kube.PluginName(o.SweepID, r.Index) + ".yaml"
		o.Header = sonobuoyHeader(o, r, len(runs), commandLine, filepath.Join(filepath.Base(output), name))
		if err := atomicfile.Write(filepath.Join(tmp, name), func(w io.Writer) error { return kube.WriteSonobuoyPlugin(w, o, r) }); err != nil {
			return err
		}
	}
	if !exists {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		return os.Rename(tmp, output)
	}
	for _, r := range runs {
		name := kube.PluginName(o.SweepID, r.Index) + ".yaml"
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(output, name)); err != nil {
			return err
		}
	}
	return nil
}
