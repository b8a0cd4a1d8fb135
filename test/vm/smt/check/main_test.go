package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const good = `{"cpus":{"online":[0,1,2,3],"cores":2,"threads_per_core":2,"smt":true,"sockets":1,
"siblings":[[0,1],[2,3]]},"cgroup":{"version":2,"mode":"v2"},
"caveats":["SMT on: more workers than cores (2) will run at uneven speed"]}`

func TestInspectSMT(t *testing.T) {
	assert.Empty(t, inspectSMT([]byte(good)))
	// The guest without its topology: four cores of one thread.
	flat := strings.NewReplacer(`"cores":2,"threads_per_core":2,"smt":true`, `"cores":4,"threads_per_core":1,"smt":false`,
		`[[0,1],[2,3]]`, `[[0],[1],[2],[3]]`, `"SMT on: more workers than cores (2) will run at uneven speed"`, "").Replace(good)
	bad := inspectSMT([]byte(flat))
	assert.Len(t, bad, 5, "%q", bad)
	assert.Contains(t, bad, "cpus.siblings: got [[0] [1] [2] [3]], want [[0 1] [2 3]]")
	assert.Len(t, inspectSMT([]byte("not json")), 1)
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "inspect.json")
	require.NoError(t, os.WriteFile(file, []byte(good), 0o644))
	var out strings.Builder
	assert.Equal(t, 0, run([]string{"inspect-smt", file}, &out))
	assert.Equal(t, "ok inspect-smt\n", out.String())
	out.Reset()
	assert.Equal(t, 1, run([]string{"inspect-smt", filepath.Join(dir, "missing.json")}, &out))
	assert.Equal(t, 3, run([]string{"no-such-check", file}, &out))
}
