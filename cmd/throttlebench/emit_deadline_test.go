package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Job's deadline: 30m by default, --timeout plus 10m when that is
// longer, or --job-deadline.
func TestEmitJobDeadline(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int64
	}{
		{nil, 1800},
		{[]string{"--timeout", "5m"}, 1800},
		{[]string{"--timeout", "45m"}, 3300},
		{[]string{"--job-deadline", "2h", "--timeout", "1h"}, 7200},
	} {
		code, stdout, stderr := runCLI(append([]string{"sweep", "--emit", "kubernetes", "--sweep-id", "example", "--cpus", "0.5"}, c.args...)...)
		require.Equal(t, exitOK, code, stderr)
		jobs := decodeJobs(t, []byte(stdout))
		require.Len(t, jobs, 1)
		require.NotNil(t, jobs[0].Spec.ActiveDeadlineSeconds)
		assert.Equal(t, c.want, *jobs[0].Spec.ActiveDeadlineSeconds, c.args)
	}
}

// The wait loop of the header, run by sh against a stand-in kubectl that
// answers what the API server would, call by call: it goes on waiting
// while a Job has neither finished condition (a trailing unfinished Job
// included, whose condition list is empty) or kubectl fails, and stops
// once every Job is Complete or Failed, which kubectl wait cannot say.
func TestEmitWaitLoop(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	code, stdout, stderr := runCLI("sweep", "--emit", "kubernetes", "--sweep-id", "example", "--cpus", "0.5", "--per-node", "--nodes", "a,b")
	require.Equal(t, exitOK, code, stderr)
	var loop string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "#     while ") {
			loop = strings.TrimPrefix(l, "#     ")
		}
	}
	require.NotEmpty(t, loop, "the header has a wait loop:\n%s", stdout)

	dir := t.TempDir()
	answers := []string{
		"tb-example-c0-n0:\ntb-example-c0-n1:\n",
		"tb-example-c0-n0:Complete\ntb-example-c0-n1:\n",
		"FAIL",
		"tb-example-c0-n0:Complete\ntb-example-c0-n1:SuccessCriteriaMet\n",
		"tb-example-c0-n0:Complete\ntb-example-c0-n1:FailureTarget\n",
		"tb-example-c0-n0:Complete\ntb-example-c0-n1:FailureTarget Failed\n",
		"never asked",
	}
	for i, a := range answers {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "answer"+strconv.Itoa(i+1)), []byte(a), 0o644))
	}
	fake := `#!/bin/sh
n=$(cat "$FAKE/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$FAKE/n"
echo "$*" > "$FAKE/args"
a=$(cat "$FAKE/answer$n")
[ "$a" = FAIL ] && exit 1
printf '%b' "$a"
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kubectl"), []byte(fake), 0o755))
	cmd := exec.Command(sh, "-c", "sleep() { :; }; c=0; "+loop)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "FAKE="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	n, err := os.ReadFile(filepath.Join(dir, "n"))
	require.NoError(t, err)
	assert.Equal(t, "6", strings.TrimSpace(string(n)), "asked until both Jobs had finished, one failed")
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	require.NoError(t, err)
	assert.Contains(t, string(args), "get job -l throttlebench/sweep=example,throttlebench/config=0 -o jsonpath=")
}

// -o is a directory of plugins whatever their number; one that holds
// another sweep's plugins is refused, the same sweep's are replaced, and
// one configuration without -o goes to stdout.
func TestEmitSonobuoyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugins")
	code, _, stderr := runCLI("sweep", "--emit", "sonobuoy", "--sweep-id", "one", "--cpus", "0.5", "-o", dir)
	require.Equal(t, exitOK, code, stderr)
	assert.FileExists(t, filepath.Join(dir, "throttlebench-one-c0.yaml"))
	code, _, stderr = runCLI("sweep", "--emit", "sonobuoy", "--sweep-id", "one", "--cpus", "0.5", "-o", dir)
	require.Equal(t, exitOK, code, "the same sweep again replaces its plugins: %s", stderr)

	code, _, stderr = runCLI("sweep", "--emit", "sonobuoy", "--sweep-id", "two", "--cpus", "0.5,1", "-o", dir)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "it holds throttlebench-one-c0.yaml, a plugin that is not one of sweep two's")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written, no temporary left")
	siblings, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	assert.Len(t, siblings, 1, "no temporary directory left beside it")

	code, stdout, stderr := runCLI("sweep", "--emit", "sonobuoy", "--sweep-id", "one", "--cpus", "0.5")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "plugin-name: throttlebench-one-c0")
}
