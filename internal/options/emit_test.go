package options

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/kube"
	"k8s.io/apimachinery/pkg/api/resource"
)

var testNow = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func none(string) bool { return false }

// changed says that the user gave these flags.
func changed(names ...string) func(string) bool { return gave(names...).Changed }

// What a pod cannot express is refused before anything is planned, with
// why and what to do instead.
func TestCheck(t *testing.T) {
	f := Emit{Emit: kube.Kubernetes}
	value := func(name string) string { return "v-" + name }
	for _, r := range Table[SweepEmit] {
		flag := r.Flags[0]
		refusedWith(t, f.Check(changed("cpus", flag), value, "auto"), flag, `--`+flag+` "v-`+flag+`" cannot be emitted: `)
	}
	refusedWith(t, f.Check(changed("cpus"), value, "create"), "cgroup", "--cgroup current")
	refusedWith(t, f.Check(changed("cpus"), value, "mine"), "cgroup", "want one of auto, current")
	refusedWith(t, f.Check(none, value, "auto"), "cpus", "needs --cpus")
	refusedWith(t, Emit{Emit: "helm"}.Check(changed("cpus"), value, "auto"), "emit", "want one of kubernetes, sonobuoy")
	assert.NoError(t, f.Check(changed("cpus"), value, "current"))
}

// A Job's deadline: 30m by default, --timeout plus 10m when that is
// longer, or --job-deadline, which must outlast --timeout.
func TestDeadline(t *testing.T) {
	f := Emit{Emit: kube.Kubernetes, Image: kube.DefaultImage, PodMemory: kube.DefaultPodMemory, Deadline: kube.DefaultDeadline}
	for _, c := range []struct {
		changed  func(string) bool
		deadline time.Duration
		timeout  time.Duration
		want     time.Duration
	}{
		{none, kube.DefaultDeadline, 0, 30 * time.Minute},
		{none, kube.DefaultDeadline, 45 * time.Minute, 55 * time.Minute},
		{changed("job-deadline"), 2 * time.Hour, time.Hour, 2 * time.Hour},
	} {
		f.Deadline = c.deadline
		o, err := f.Resolve(c.changed, nil, c.timeout, testNow)
		require.NoError(t, err)
		assert.Equal(t, c.want, o.Deadline)
	}
	f.Deadline = 30 * time.Minute
	_, err := f.Resolve(changed("job-deadline"), nil, time.Hour, testNow)
	refusedWith(t, err, "job-deadline", "give --job-deadline 1h10m0s or more")
	o, err := f.Resolve(none, nil, 0, testNow)
	require.NoError(t, err)
	assert.Equal(t, "20250102-030405", o.SweepID, "the time, without --sweep-id")
}

// --per-node's nodes: from --nodes or from a file or stdin as kubectl get
// nodes -o name prints them, each once, each a node name.
func TestNodes(t *testing.T) {
	f := Emit{Emit: kube.Kubernetes, PerNode: true, NodesFrom: "-"}
	got, err := f.nodes(changed("nodes-from"), strings.NewReader("node/node-a\n\n# a comment\nnode/node-b\nnode-a\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"node-a", "node-b"}, got)

	f.Nodes = "a, " + strings.Repeat("b", 64) + ".example.com"
	got, err = f.nodes(changed("nodes"), nil)
	require.NoError(t, err)
	assert.Len(t, got, 2, "a dotted part over 63 characters is a node name")

	f.Nodes = "a,Node_B"
	_, err = f.nodes(changed("nodes"), nil)
	refusedWith(t, err, "nodes", `node "Node_B": `+kube.NodeName("Node_B"))
	f.NodesFrom = filepath.Join(t.TempDir(), "none.txt")
	_, err = f.nodes(changed("nodes-from"), nil)
	refusedWith(t, err, "nodes-from", "no such file or directory")
	_, err = f.nodes(changed("nodes", "nodes-from"), nil)
	refusedWith(t, err, "nodes", "conflicts with --nodes-from")
	_, err = f.nodes(none, nil)
	refusedWith(t, err, "per-node", "--per-node needs the nodes")
	f.PerNode = false
	_, err = f.nodes(changed("nodes"), nil)
	refusedWith(t, err, "nodes", "applies with --per-node")
}

// A Sonobuoy plugin runs on every node, with its own time and clean-up.
func TestSonobuoyOnly(t *testing.T) {
	f := Emit{Emit: kube.Sonobuoy, Image: kube.DefaultImage, PodMemory: kube.DefaultPodMemory, NodeSelector: []string{"a=1", "b=2"}}
	for _, flag := range []string{"per-node", "nodes", "nodes-from", "ttl", "job-deadline"} {
		_, err := Emit{Emit: kube.Sonobuoy, Image: kube.DefaultImage, PodMemory: kube.DefaultPodMemory}.Resolve(changed(flag), nil, 0, testNow)
		refusedWith(t, err, flag, "applies to --emit kubernetes")
	}
	_, err := f.Resolve(none, nil, 0, testNow)
	refusedWith(t, err, "node-selector", "takes one --node-selector (2 given)")
}

// --node-selector's keys and values are checked by apimachinery.
func TestNodeSelector(t *testing.T) {
	got, err := nodeSelector([]string{"cloud.google.com/gke-nodepool=pool-a", "pool="})
	require.NoError(t, err)
	assert.Equal(t, []kube.Label{{Key: "cloud.google.com/gke-nodepool", Value: "pool-a"}, {Key: "pool", Value: ""}}, got)
	_, err = nodeSelector([]string{"pool"})
	refusedWith(t, err, "node-selector", "want key=value")
	_, err = nodeSelector([]string{"Bad_Prefix/x=1"})
	refusedWith(t, err, "node-selector", `key "Bad_Prefix/x": prefix part a lowercase RFC 1123 subdomain`)
	_, err = nodeSelector([]string{"pool=a b"})
	refusedWith(t, err, "node-selector", `value "a b"`)
	_, err = nodeSelector([]string{"pool=a", "pool=b"})
	refusedWith(t, err, "node-selector", "given twice (also pool=a)")
}

// --pod-memory takes what Kubernetes takes for a quantity (resource.
// ParseQuantity: exponents, a leading dot or sign), from 32Mi up.
func TestPodMemory(t *testing.T) {
	min := resource.MustParse("32Mi")
	for _, s := range []string{"256Mi", "1Gi", "1.5G", "1e9", ".5Gi", "+1Gi", "1e3", "32Mi", "33554431", "-1Mi", "1Ki", "lots", "", "1MB", "0x10", "Mi"} {
		q, err := resource.ParseQuantity(s)
		want := err == nil && q.Cmp(min) >= 0
		o, err := Emit{Emit: kube.Kubernetes, Image: kube.DefaultImage, PodMemory: s}.Resolve(none, nil, 0, testNow)
		assert.Equal(t, want, err == nil, "%q: %v", s, err)
		if want {
			assert.Zero(t, o.Memory.Cmp(q), "%q", s)
		} else {
			assert.ErrorContains(t, err, "invalid --pod-memory")
		}
	}
}

// --image is any printable reference without blanks: what the manifest
// can carry exactly (YAML reads a NEL as a line break, and JSON turns a
// byte that is not UTF-8 into U+FFFD).
func TestImage(t *testing.T) {
	for _, img := range []string{"", "a b", "a\tb", "a\nb", "a\u0085b", "a\x7fb", "a\xffb", "a\u2028b"} {
		_, err := Emit{Emit: kube.Kubernetes, Image: img, PodMemory: kube.DefaultPodMemory}.Resolve(none, nil, 0, testNow)
		refusedWith(t, err, "image", "want an image reference")
	}
	for _, img := range []string{"throttlebench:dev", "registry.example.com:5000/tb@sha256:0123abcd", "ÿ/é:1e3"} {
		_, err := Emit{Emit: kube.Kubernetes, Image: img, PodMemory: kube.DefaultPodMemory}.Resolve(none, nil, 0, testNow)
		assert.NoError(t, err, img)
	}
}
