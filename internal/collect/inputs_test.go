package collect

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/badinput"
)

// Read takes stdin, a log, an archive (by its bytes, whatever its name),
// and a directory, into one collection.
func TestRead(t *testing.T) {
	single, err := os.ReadFile(filepath.Join("testdata", "single.log"))
	require.NoError(t, err)
	archive, err := os.ReadFile(filepath.Join("testdata", "sonobuoy.tar.gz"))
	require.NoError(t, err)
	dir := t.TempDir()
	renamed := filepath.Join(dir, "results.bin")
	require.NoError(t, os.WriteFile(renamed, archive, 0o644))
	logs := filepath.Join(dir, "logs")
	require.NoError(t, os.MkdirAll(filepath.Join(logs, "more"), 0o755))
	for _, name := range []string{"failed.log", "more/prefixed.log"} {
		data, err := os.ReadFile(filepath.Join("testdata", filepath.Base(name)))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(logs, name), data, 0o644))
	}

	c, err := Read([]string{"-", renamed, logs}, bytes.NewReader(single))
	require.NoError(t, err)
	// node-a's result is in all three (kept once, from stdin, read first);
	// node-b's from the archive (it names no node there: a different
	// result) and from prefixed.log; node-c's from prefixed.log.
	var found []string
	for _, f := range c.Found {
		found = append(found, f.Source+" "+f.Report.Host.Node)
	}
	assert.Equal(t, []string{"stdin node-a", "plugins/throttlebench-rt-c0/results/node-b/throttlebench.json node-b",
		"pod/tb-rt-c0-n1-m4k9z/throttlebench node-b", "pod/tb-rt-c1-n1-s5v6t/throttlebench node-c"}, found)
	assert.Equal(t, 2, c.Duplicates)
	var missing []string
	for _, m := range c.MissingOn(nil) {
		missing = append(missing, m.Source)
	}
	assert.Equal(t, []string{"plugins/throttlebench-rt-c0/results/node-c/error.json", filepath.Join(logs, "failed.log"),
		"pod/tb-rt-c1-n0-d8w3r/throttlebench"}, missing, "in the order read; a directory's files by path")
}

func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.tar.gz")
	require.NoError(t, os.WriteFile(broken, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 'x'}, 0o644))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	for input, want := range map[string]string{
		broken: `invalid input "` + broken + `": not a readable Sonobuoy results archive`,
		empty:  `invalid input "` + empty + `": no log files in it (and no plugins/<plugin>/results/<node>/ of a Sonobuoy archive)`,
	} {
		_, err := Read([]string{input}, strings.NewReader(""))
		var e *badinput.Error
		require.ErrorAs(t, err, &e, input)
		assert.Contains(t, err.Error(), want)
	}
}

// --node keeps one node's results, and leaves out what is missing on the
// others where that is known; the summary says what was kept.
func TestSummaryAndNodes(t *testing.T) {
	c, err := Read([]string{filepath.Join("testdata", "sonobuoy.tar.gz")}, nil)
	require.NoError(t, err)
	reps := c.Reports()
	assert.Equal(t, "2 results from 3 pods or files, nodes node-a (1), node-b (1); 1 without a result", c.Summary(reps, reps, nil))
	assert.Len(t, c.MissingOn(nil), 1)

	only := []string{"node-a"}
	kept := OnNodes(reps, only)
	require.Len(t, kept, 1)
	assert.Equal(t, "node-a", kept[0].Host.Node)
	assert.Empty(t, c.MissingOn(only), "node-c's failure is another node's")
	assert.Equal(t, "2 results from 3 pods or files, nodes node-a (1), node-b (1); 1 without a result; kept 1 of them (--node node-a), leaving out 1 without a result from other nodes",
		c.Summary(reps, kept, only))
	assert.Equal(t, reps, OnNodes(reps, nil))
	assert.Empty(t, c.Unnamed(), "node-b's result names none, and takes its node from the path")

	var logs Collection
	data, err := os.ReadFile(filepath.Join("testdata", "single.log"))
	require.NoError(t, err)
	logs.Log("plain.log", bytes.ReplaceAll(data, []byte(`"node": "node-a"`), []byte(`"node": ""`)))
	assert.Equal(t, []string{"plain.log"}, logs.Unnamed())
}
