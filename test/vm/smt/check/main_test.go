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

func TestRunOnePerCore(t *testing.T) {
	const run = `{"config":{"one_per_core":true,"pin":false},"cgroup":{"allowed_cpus":"0,2","effective_cpus":2},
"workers":[{"cpus":[0,2],"pinned_cpu":null},{"cpus":[2],"pinned_cpu":null}]}`
	assert.Empty(t, runOnePerCore(false)([]byte(run)))
	// A worker on the second thread of a core, and all threads allowed.
	bad := runOnePerCore(false)([]byte(strings.NewReplacer(`"cpus":[2]`, `"cpus":[1,2]`, `"0,2"`, `"0-3"`).Replace(run)))
	assert.Len(t, bad, 2, "%q", bad)

	const pinned = `{"config":{"one_per_core":true,"pin":true},"cgroup":{"allowed_cpus":"0,2","effective_cpus":2},
"workers":[{"cpus":[0],"pinned_cpu":0},{"cpus":[2],"pinned_cpu":2}]}`
	assert.Empty(t, runOnePerCore(true)([]byte(pinned)))
	assert.Len(t, runOnePerCore(true)([]byte(strings.Replace(pinned, `"cpus":[2],"pinned_cpu":2`, `"cpus":[0,2],"pinned_cpu":2`, 1))), 1)
	assert.NotEmpty(t, runOnePerCore(false)([]byte(pinned)), "pinned where it should not be")
}
