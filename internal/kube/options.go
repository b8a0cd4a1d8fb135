package kube

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/modes"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// What --emit writes.
const (
	Kubernetes = "kubernetes"
	Sonobuoy   = "sonobuoy"
)

// Defaults and bounds of the emit flags.
const (
	DefaultImage     = "throttlebench:dev"
	DefaultPodMemory = "256Mi"
	DefaultTTL       = 24 * time.Hour
	maxTTL           = 30 * 24 * time.Hour
	// DefaultDeadline is a Job's activeDeadlineSeconds unless --timeout
	// asks for longer: a pod that does not start, or does not end, is
	// stopped then, so that the next configuration never shares its node.
	DefaultDeadline = 30 * time.Minute
	// DeadlineMargin is what a Job's deadline leaves beyond --timeout for
	// pulling the image and starting the pod.
	DeadlineMargin = 10 * time.Minute
	maxNodes       = 10000
)

// minPodMemory holds the Go runtime, the parent and its workload child.
var minPodMemory = resource.MustParse("32Mi")

// Flags are sweep's --emit flags as given.
type Flags struct {
	Emit         string // Kubernetes or Sonobuoy
	Image        string
	PodMemory    string
	TTL          time.Duration
	Deadline     time.Duration // --job-deadline
	SweepID      string
	NodeSelector []string // key=value
	PerNode      bool
	Nodes        string // comma-separated
	NodesFrom    string // a file, - for stdin
}

// options checks the emit flags and reads the node list; timeout is
// --timeout (0: none).
func (f Flags) options(changed func(string) bool, stdin io.Reader, timeout time.Duration, now time.Time) (Options, error) {
	o := Options{Image: f.Image, TTL: f.TTL, SweepID: f.SweepID}
	if f.Emit == Sonobuoy {
		if err := modes.Refuse(modes.SweepSonobuoy, modes.Given{Changed: changed}); err != nil {
			return o, err
		}
	}
	// Printable and without blanks: JSON turns bytes that are not UTF-8
	// into U+FFFD, and YAML reads some control characters as line breaks.
	if f.Image == "" || !utf8.ValidString(f.Image) || strings.IndexFunc(f.Image, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return o, badinput.Errorf("image", "invalid --image %q: want an image reference such as registry.example.com/throttlebench:dev", f.Image)
	}
	mem, err := resource.ParseQuantity(f.PodMemory)
	if err != nil || mem.Cmp(minPodMemory) < 0 {
		return o, badinput.Errorf("pod-memory", "invalid --pod-memory %q: want a quantity of at least 32Mi, such as 256Mi or 1Gi", f.PodMemory)
	}
	o.Memory = mem
	if f.TTL != 0 && (f.TTL < time.Minute || f.TTL > maxTTL) {
		return o, badinput.Errorf("ttl", "invalid --ttl %v: want 0 (keep finished Jobs until deleted) or between 1m and %v; a Job deleted before collect takes its pod's log with it", f.TTL, maxTTL)
	}
	if f.TTL%time.Second != 0 {
		return o, badinput.Errorf("ttl", "invalid --ttl %v: want whole seconds", f.TTL)
	}
	const maxDeadline = config.MaxTimeout + DeadlineMargin
	o.Deadline = f.Deadline
	if !changed("job-deadline") {
		o.Deadline = max(DefaultDeadline, timeout+DeadlineMargin)
	} else if f.Deadline < time.Minute || f.Deadline > maxDeadline || f.Deadline%time.Second != 0 {
		return o, badinput.Errorf("job-deadline", "invalid --job-deadline %v: want whole seconds between 1m and %v", f.Deadline, maxDeadline)
	} else if timeout > 0 && f.Deadline <= timeout {
		return o, badinput.Errorf("job-deadline", "invalid --job-deadline %v: not longer than --timeout %v; the pod would be stopped before the run's own limit, with its result lost (give --job-deadline %v or more)", f.Deadline, timeout, timeout+DeadlineMargin)
	}
	if !changed("sweep-id") {
		o.SweepID = now.UTC().Format("20060102-150405")
	} else if why := sweepID(f.SweepID); why != "" {
		return o, badinput.Errorf("sweep-id", "invalid --sweep-id %q: %s", f.SweepID, why)
	}
	if o.NodeSelector, err = nodeSelector(f.NodeSelector); err != nil {
		return o, err
	}
	if f.Emit == Sonobuoy {
		if len(o.NodeSelector) > 1 {
			return o, badinput.Errorf("node-selector", "--emit sonobuoy takes one --node-selector (%d given): Sonobuoy releases before 2024 expect a result from every node that matches any one of a plugin's labels, while only nodes that match all get a pod; label the pool with one label, or use --emit kubernetes", len(o.NodeSelector))
		}
		return o, nil
	}
	o.Nodes, err = f.nodes(changed, stdin)
	return o, err
}

// nodeSelector reads --node-selector's key=value pairs.
func nodeSelector(given []string) ([]Label, error) {
	var out []Label
	for _, s := range given {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return nil, badinput.Errorf("node-selector", "invalid --node-selector %q: want key=value, such as cloud.google.com/gke-nodepool=pool-a", s)
		}
		if errs := content.IsLabelKey(k); len(errs) > 0 {
			return nil, badinput.Errorf("node-selector", "invalid --node-selector %q: key %q: %s", s, k, strings.Join(errs, "; "))
		}
		if errs := content.IsLabelValue(v); len(errs) > 0 {
			return nil, badinput.Errorf("node-selector", "invalid --node-selector %q: value %q: %s", s, v, strings.Join(errs, "; "))
		}
		for _, prev := range out {
			if prev.Key == k {
				return nil, badinput.Errorf("node-selector", "invalid --node-selector %q: the label %s is given twice (also %s=%s); a node has one value per label", s, k, k, prev.Value)
			}
		}
		out = append(out, Label{Key: k, Value: v})
	}
	return out, nil
}

// nodes are --per-node's nodes, from --nodes or --nodes-from, each once.
func (f Flags) nodes(changed func(string) bool, stdin io.Reader) ([]string, error) {
	switch {
	case f.PerNode && changed("nodes") && changed("nodes-from"):
		return nil, badinput.Errorf("nodes", "--nodes %q conflicts with --nodes-from %q: give one of them", f.Nodes, f.NodesFrom)
	case f.PerNode && !changed("nodes") && !changed("nodes-from"):
		return nil, badinput.Errorf("per-node", "--per-node needs the nodes: --nodes a,b,c or --nodes-from FILE (kubectl get nodes -o name -l KEY=VALUE > FILE); emit cannot ask the cluster")
	case !f.PerNode && changed("nodes"):
		return nil, badinput.Errorf("nodes", "--nodes %q applies with --per-node", f.Nodes)
	case !f.PerNode && changed("nodes-from"):
		return nil, badinput.Errorf("nodes-from", "--nodes-from %q applies with --per-node", f.NodesFrom)
	case !f.PerNode:
		return nil, nil
	}
	var names []string
	flag, value := "nodes", f.Nodes
	if changed("nodes") {
		names = strings.FieldsFunc(f.Nodes, func(r rune) bool { return r == ',' || r == ' ' })
	} else {
		flag, value = "nodes-from", f.NodesFrom
		var err error
		if names, err = readNodes(f.NodesFrom, stdin); err != nil {
			return nil, badinput.Errorf(flag, "invalid --nodes-from %q: %v", f.NodesFrom, err)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimPrefix(n, "node/")
		if why := NodeName(n); why != "" {
			return nil, badinput.Errorf(flag, "invalid --%s %q: node %q: %s", flag, value, n, why)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	switch {
	case len(out) == 0:
		return nil, badinput.Errorf(flag, "invalid --%s %q: no node named", flag, value)
	case len(out) > maxNodes:
		return nil, badinput.Errorf(flag, "invalid --%s %q: %d nodes, at most %d", flag, value, len(out), maxNodes)
	}
	return out, nil
}

// readNodes reads node names, one a line ("node/NAME" as kubectl get nodes
// -o name prints them, or NAME); blank lines and # comments are skipped.
func readNodes(path string, stdin io.Reader) ([]string, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, badinput.PathCause(err)
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

// NodeName says what is wrong with a node name ("" when nothing), by
// Kubernetes' own rule for one: a DNS subdomain.
func NodeName(s string) string {
	return strings.Join(content.IsDNS1123Subdomain(s), "; ")
}

// sweepID says what is wrong with a sweep id ("" when nothing): a DNS
// label that keeps the longest names made of it (a Job's, a plugin's)
// label values, as Kubernetes and Sonobuoy put them on their pods.
func sweepID(s string) string {
	if errs := content.IsDNS1123Label(s); len(errs) > 0 {
		return strings.Join(errs, "; ")
	}
	for _, name := range []string{JobName(s, sweep.MaxConfigs-1, maxNodes-1), PluginName(s, sweep.MaxConfigs-1)} {
		if errs := content.IsLabelValue(name); len(errs) > 0 {
			return fmt.Sprintf("too long: it is part of every Job's and plugin's name, such as %s, which its pods carry as a label value: %s", name, strings.Join(errs, "; "))
		}
	}
	return ""
}

// labelValue makes a value of a swept parameter fit a label: µs becomes
// us, any other character a label value cannot hold becomes '_', and the
// ends are trimmed to what a label value may start and end with.
// apimachinery says which characters those are. Labels are for selecting
// and reading; the run's own arguments carry the exact value.
func labelValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if len(content.IsLabelValue("a"+string(r)+"a")) > 0 {
			return '_'
		}
		return r
	}, strings.ReplaceAll(s, "µ", "u"))
	if len(s) > content.LabelValueMaxLength {
		s = s[:content.LabelValueMaxLength]
	}
	return strings.TrimFunc(s, func(r rune) bool { return len(content.IsLabelValue(string(r))) > 0 })
}

// CPULimit reads a --cpus value as a pod's CPU limit: whole millicores,
// the finest unit a pod's limit is written in; ok is false for anything
// finer, or for no CPU at all.
func CPULimit(cpus string) (q resource.Quantity, ok bool) {
	given, err := resource.ParseQuantity(cpus)
	if err != nil || given.Sign() <= 0 {
		return q, false
	}
	q = *resource.NewMilliQuantity(given.MilliValue(), resource.DecimalSI)
	return q, q.Cmp(given) == 0
}
