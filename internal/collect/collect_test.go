package collect

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The logs under testdata are in the formats kubectl logs prints (no
// cluster was at hand to record them from: they hold real results of this
// host, laid out as kubectl lays out a pod's log), and a results archive
// laid out as sonobuoy retrieve writes one; testdata/README.md says how each
// was made.
func readLog(t *testing.T, name string) *Collection {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var c Collection
	c.Log(name, data)
	return &c
}

func nodes(c *Collection) []string {
	var out []string
	for _, r := range c.Reports() {
		out = append(out, r.Host.Node)
	}
	return out
}

func TestSinglePod(t *testing.T) {
	c := readLog(t, "single.log")
	assert.Empty(t, c.Missing)
	require.Len(t, c.Found, 1)
	assert.Equal(t, "single.log", c.Found[0].Source)
	assert.Equal(t, 1, c.Found[0].Line)
	assert.Equal(t, "node-a", c.Found[0].Report.Host.Node)
	assert.Len(t, c.Found[0].Report.DurationsMs, 4)
	assert.Equal(t, 1, c.Sources)
}

// Many pods with kubectl's --prefix: each pod's lines are its own, a
// stderr line the runtime put inside a result is left out, and the pod
// that failed is listed with its last line.
func TestManyPodsWithPrefixes(t *testing.T) {
	c := readLog(t, "prefixed.log")
	assert.Equal(t, 4, c.Sources)
	require.Len(t, c.Found, 3)
	assert.Equal(t, []string{"node-a", "node-b", "node-c"}, nodes(c))
	assert.Equal(t, "pod/tb-rt-c0-n1-m4k9z/throttlebench", c.Found[1].Source)
	require.Len(t, c.Missing, 1)
	assert.Equal(t, "pod/tb-rt-c1-n0-d8w3r/throttlebench", c.Missing[0].Source)
	assert.Equal(t, `no result in the log; its last line: "throttlebench: the run failed: reading /sys/fs/cgroup/cpu.max: permission denied"`, c.Missing[0].Reason)
}

// kubectl logs --timestamps, two pods' lines interleaved as -f prints them.
func TestTimestampsAndInterleavedPods(t *testing.T) {
	c := readLog(t, "timestamps.log")
	assert.Empty(t, c.Missing)
	assert.Equal(t, []string{"node-a", "node-b"}, nodes(c))
	plain := readLog(t, "prefixed.log")
	assert.Equal(t, plain.Found[0].Report.DurationsMs, c.Found[0].Report.DurationsMs)
}

// kubectl logs --ignore-errors goes on past a pod whose log it cannot read
// and says so on stdout; collect lists that pod by name.
func TestKubectlErrorLines(t *testing.T) {
	c := readLog(t, "ignore-errors.log")
	assert.Equal(t, 3, c.Sources)
	require.Len(t, c.Found, 1)
	assert.Equal(t, "node-a", c.Found[0].Report.Host.Node)
	require.Len(t, c.Missing, 2)
	assert.Equal(t, "pod/tb-rt-c0-n2-q8v4n/throttlebench", c.Missing[0].Source)
	assert.Equal(t, `kubectl could not read its log: "container \"throttlebench\" in pod \"tb-rt-c0-n2-q8v4n\" is waiting to start: ContainerCreating"`, c.Missing[0].Reason)
	assert.Equal(t, "pod/tb-rt-c0-n3-w2b7k", c.Missing[1].Source)
}

func TestFailedPod(t *testing.T) {
	c := readLog(t, "failed.log")
	assert.Empty(t, c.Found)
	require.Len(t, c.Missing, 1)
	assert.Equal(t, "failed.log", c.Missing[0].Source)
	assert.Contains(t, c.Missing[0].Reason, "no result in the log; its last line: \"throttlebench: --cgroup current: no cgroup")
}

func TestTruncatedLog(t *testing.T) {
	c := readLog(t, "truncated.log")
	assert.Empty(t, c.Found)
	require.Len(t, c.Missing, 1)
	assert.Equal(t, "truncated: a result starts at line 1 and the log ends 46 lines later, inside it", c.Missing[0].Reason)
}

// A truncated result followed, in the same unprefixed stream, by a
// complete one (cat truncated.log single.log): the first is reported
// truncated, the second is recovered, not swallowed into the first.
func TestTruncatedThenComplete(t *testing.T) {
	truncated, err := os.ReadFile("testdata/truncated.log")
	require.NoError(t, err)
	single, err := os.ReadFile("testdata/single.log")
	require.NoError(t, err)
	var c Collection
	c.Log("cat.log", append(truncated, single...))
	require.Len(t, c.Found, 1)
	assert.Equal(t, 48, c.Found[0].Line)
	assert.Equal(t, "node-a", c.Found[0].Report.Host.Node)
	require.Len(t, c.Missing, 1)
	assert.Equal(t, "truncated: a result starts at line 1 and breaks off 47 lines later, where another begins (line 48)", c.Missing[0].Reason)
}

// An indented stderr line inside a result (a stack trace's, a runtime's)
// is left out on a second try, rather than losing the result.
func TestIndentedStderrInsideAResult(t *testing.T) {
	data, err := os.ReadFile("testdata/single.log")
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	mixed := append(append(slices.Clone(lines[:20]), "\tgoroutine 7 [running]:", "    warning: something: {odd}"), lines[20:]...)
	var c Collection
	c.Log("mixed.log", []byte(strings.Join(mixed, "\n")))
	assert.Empty(t, c.Missing)
	require.Len(t, c.Found, 1)
	assert.Equal(t, "node-a", c.Found[0].Report.Host.Node)
}

func TestEmptyLog(t *testing.T) {
	c := readLog(t, "empty.log")
	assert.Empty(t, c.Found)
	require.Len(t, c.Missing, 1)
	assert.Contains(t, c.Missing[0].Reason, "empty log")
}

// A result that is JSON but no result (a latency result, another tool's
// object) is named with what is wrong with it.
func TestJSONThatIsNoResult(t *testing.T) {
	var c Collection
	c.Log("other.log", []byte("{\"hello\": 1}\n{\n  \"schema_version\": 1\n}\n"))
	assert.Empty(t, c.Found)
	require.Len(t, c.Missing, 2)
	assert.Contains(t, c.Missing[0].Reason, `the JSON at line 1 is no result: "line 1: an object without schema_version is not a run result"`)
	assert.Contains(t, c.Missing[1].Reason, "at line 2")
}

// The same log read twice gives its result once.
func TestDuplicates(t *testing.T) {
	data, err := os.ReadFile("testdata/single.log")
	require.NoError(t, err)
	var c Collection
	c.Log("a", data)
	c.Log("b", data)
	assert.Len(t, c.Found, 1)
	assert.Equal(t, 1, c.Duplicates)
}

// A Sonobuoy results archive: each node's result under
// plugins/<plugin>/results/<node>/, the node taken from the path where the
// result names none, Sonobuoy's error result for a node whose pod failed
// listed with its message; the rest of the tree (podlogs, meta) is not read.
func TestSonobuoyArchive(t *testing.T) {
	f, err := os.Open("testdata/sonobuoy.tar.gz")
	require.NoError(t, err)
	defer f.Close()
	var c Collection
	require.NoError(t, c.Archive("sonobuoy.tar.gz", f))
	assert.Equal(t, 3, c.Sources)
	assert.Equal(t, []string{"node-a", "node-b"}, nodes(&c))
	assert.Equal(t, "plugins/throttlebench-rt-c0/results/node-b/throttlebench.json", c.Found[1].Source)
	require.Len(t, c.Missing, 1)
	assert.Equal(t, "plugins/throttlebench-rt-c0/results/node-c/error.json", c.Missing[0].Source)
	assert.True(t, strings.HasPrefix(c.Missing[0].Reason, `an error result: "Container plugin is in a terminated state`), c.Missing[0].Reason)
}

// A truncated download keeps what was read before the damage and lists
// the archive; one damaged before any result file is an error.
func TestTruncatedArchive(t *testing.T) {
	result, err := os.ReadFile("testdata/single.log")
	require.NoError(t, err)
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	first := 0 // where the second member starts
	for _, node := range []string{"node-a", "node-b"} {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: "plugins/tb/results/" + node + "/throttlebench.json", Mode: 0o644, Size: int64(len(result)), Typeflag: tar.TypeReg}))
		_, err := tw.Write(result)
		require.NoError(t, err)
		require.NoError(t, tw.Flush())
		if first == 0 {
			first = b.Len()
		}
	}
	require.NoError(t, tw.Close())

	// Cut inside the second member's data.
	var c Collection
	require.NoError(t, c.Archive("cut.tar", bytes.NewReader(b.Bytes()[:first+512+100])))
	require.Len(t, c.Found, 1)
	assert.Equal(t, "node-a", c.Found[0].Report.Host.Node)
	require.Len(t, c.Missing, 1)
	assert.Equal(t, "cut.tar", c.Missing[0].Source)
	assert.Contains(t, c.Missing[0].Reason, "archive truncated after 1 result files (plugins/tb/results/node-b/throttlebench.json: unexpected EOF)")
	assert.Equal(t, 2, c.Sources)

	// Cut inside the first.
	var none Collection
	assert.ErrorIs(t, none.Archive("head.tar", bytes.NewReader(b.Bytes()[:600])), ErrArchive)
	assert.Empty(t, none.Missing)
}

func TestArchiveWithoutResults(t *testing.T) {
	var c Collection
	err := c.Archive("x.tar", strings.NewReader(strings.Repeat("\x00", 1024)))
	assert.ErrorIs(t, err, ErrArchive)
	assert.Contains(t, err.Error(), "holds no plugins/<plugin>/results/<node>/ files")
}

// A node name taken from an archive's path or from a result's host.node
// is kept only if it is a node's name: a newline or a tab cannot reach a
// table or a label.
func TestNodeNamesAreSanitized(t *testing.T) {
	data, err := os.ReadFile("testdata/single.log")
	require.NoError(t, err)
	evil := strings.Replace(string(data), `"node": "node-a"`, `"node": "node-a\n| x"`, 1)
	require.NotEqual(t, string(data), evil)
	var c Collection
	require.True(t, c.SonobuoyFile("plugins/tb/results/bad\nnode/throttlebench.json", []byte(evil)))
	require.Len(t, c.Found, 1)
	assert.Equal(t, "", c.Found[0].Report.Host.Node)

	var d Collection
	require.True(t, d.SonobuoyFile("plugins/tb/results/node-z/throttlebench.json", []byte(evil)))
	require.Len(t, d.Found, 1)
	assert.Equal(t, "node-z", d.Found[0].Report.Host.Node, "the path's node where the result's is no node name")
}

func TestSonobuoyNode(t *testing.T) {
	for p, want := range map[string][3]string{
		"plugins/tb/results/node-a/throttlebench.json":  {"tb", "node-a", "true"},
		"./plugins/tb/results/node-a/x/y.json":          {"tb", "node-a", "true"},
		"202501_sonobuoy_x/plugins/tb/results/n/f.json": {"tb", "n", "true"},
		"plugins/tb/results/global/out.json":            {"tb", "", "true"},
		"plugins/tb/sonobuoy_results.yaml":              {"", "", "false"},
		"podlogs/ns/pod/logs/plugin.txt":                {"", "", "false"},
		"plugins/tb/results/node-a":                     {"", "", "false"},
	} {
		plugin, node, ok := SonobuoyNode(p)
		assert.Equal(t, want, [3]string{plugin, node, map[bool]string{true: "true", false: "false"}[ok]}, p)
	}
}

// Results come out by node, then by configuration, whatever order the
// pods' logs came in.
func TestOrder(t *testing.T) {
	data, err := os.ReadFile("testdata/prefixed.log")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// Reverse the pods: node-c's lines first.
	var rev []string
	for _, pod := range []string{"s5v6t", "d8w3r", "m4k9z", "7xq2p"} {
		for _, l := range lines {
			if strings.Contains(l, pod) {
				rev = append(rev, l)
			}
		}
	}
	var c Collection
	c.Log("x", []byte(strings.Join(rev, "\n")))
	assert.Equal(t, []string{"node-a", "node-b", "node-c"}, nodes(&c))
}
