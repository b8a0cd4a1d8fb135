package options

// Emit's flags are checked here; the manifests are written by
// internal/kube from what Resolve makes of them.

import (
	"bufio"
	"io"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/kube"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
)

// Bounds of the emit flags that are the user's input alone.
var (
	// minPodMemory holds the Go runtime, the parent and its workload child.
	minPodMemory = resource.MustParse("32Mi")
	maxTTL       = 30 * 24 * time.Hour
)

// Check refuses, before the sweep is planned, what cannot be emitted: an
// unknown --emit, a flag a pod cannot express (value gives a flag's value
// as given, for the message), a cgroup mode other than the pods' own
// (mode is --cgroup), a sweep without --cpus.
func (f Emit) Check(changed func(string) bool, value func(string) string, mode string) error {
	if err := badinput.Choice("emit", f.Emit, []string{kube.Kubernetes, kube.Sonobuoy}); err != nil {
		return err
	}
	if err := Refuse(SweepEmit, Given{Changed: changed, Value: value}); err != nil {
		return err
	}
	if mode == "create" {
		return badinput.Errorf("cgroup", "--cgroup %q cannot be emitted: each pod measures the cgroup its CPU limit gives it (--cgroup current); drop --cgroup", mode)
	}
	if err := badinput.Choice("cgroup", mode, []string{"auto", "current"}); err != nil {
		return err
	}
	if !changed("cpus") {
		return badinput.Errorf("cpus", "--emit %s needs --cpus: the pods' CPU limits are what is measured, such as --cpus 0.25,0.5,1", f.Emit)
	}
	return nil
}

// Emit are sweep's --emit flags as given.
type Emit struct {
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

// Resolve checks the emit flags and reads the node list; timeout is
// --timeout (0: none), now names the sweep without --sweep-id.
func (f Emit) Resolve(changed func(string) bool, stdin io.Reader, timeout time.Duration, now time.Time) (kube.Options, error) {
	o := kube.Options{Emit: f.Emit, Image: f.Image, TTL: f.TTL, SweepID: f.SweepID}
	if f.Emit == kube.Sonobuoy {
		if err := Refuse(SweepSonobuoy, Given{Changed: changed}); err != nil {
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
	const maxDeadline = config.MaxTimeout + kube.DeadlineMargin
	o.Deadline = f.Deadline
	if !changed("job-deadline") {
		o.Deadline = max(kube.DefaultDeadline, timeout+kube.DeadlineMargin)
	} else if f.Deadline < time.Minute || f.Deadline > maxDeadline || f.Deadline%time.Second != 0 {
		return o, badinput.Errorf("job-deadline", "invalid --job-deadline %v: want whole seconds between 1m and %v", f.Deadline, maxDeadline)
	} else if timeout > 0 && f.Deadline <= timeout {
		return o, badinput.Errorf("job-deadline", "invalid --job-deadline %v: not longer than --timeout %v; the pod would be stopped before the run's own limit, with its result lost (give --job-deadline %v or more)", f.Deadline, timeout, timeout+kube.DeadlineMargin)
	}
	if !changed("sweep-id") {
		o.SweepID = now.UTC().Format("20060102-150405")
	} else if why := kube.SweepID(f.SweepID); why != "" {
		return o, badinput.Errorf("sweep-id", "invalid --sweep-id %q: %s", f.SweepID, why)
	}
	if o.NodeSelector, err = nodeSelector(f.NodeSelector); err != nil {
		return o, err
	}
	if f.Emit == kube.Sonobuoy {
		if len(o.NodeSelector) > 1 {
			return o, badinput.Errorf("node-selector", "--emit sonobuoy takes one --node-selector (%d given): Sonobuoy releases before 2024 expect a result from every node that matches any one of a plugin's labels, while only nodes that match all get a pod; label the pool with one label, or use --emit kubernetes", len(o.NodeSelector))
		}
		return o, nil
	}
	o.Nodes, err = f.nodes(changed, stdin)
	return o, err
}

// nodeSelector reads --node-selector's key=value pairs.
func nodeSelector(given []string) ([]kube.Label, error) {
	var out []kube.Label
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
		out = append(out, kube.Label{Key: k, Value: v})
	}
	return out, nil
}

// nodes are --per-node's nodes, from --nodes or --nodes-from, each once.
func (f Emit) nodes(changed func(string) bool, stdin io.Reader) ([]string, error) {
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
		if why := kube.NodeName(n); why != "" {
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
	case len(out) > kube.MaxNodes:
		return nil, badinput.Errorf(flag, "invalid --%s %q: %d nodes, at most %d", flag, value, len(out), kube.MaxNodes)
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
