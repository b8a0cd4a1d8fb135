//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ciSteps are the shell blocks of docs/ci.md's YAML that begin with a
// "# throttlebench: STEP" line, by job (the YAML block they are in, in
// order) and step, each as the CI would run it: the block's lines less
// its indentation.
func ciSteps(t *testing.T) []map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../docs/ci.md")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	marker := regexp.MustCompile(`^(\s*)# throttlebench: (\w+)$`)
	var jobs []map[string]string
	for _, b := range blocks {
		steps := map[string]string{}
		lines := strings.Split(b[1], "\n")
		for i, l := range lines {
			m := marker.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			indent := m[1]
			var body []string
			for _, next := range lines[i:] {
				if strings.TrimSpace(next) != "" && !strings.HasPrefix(next, indent) {
					break
				}
				body = append(body, strings.TrimPrefix(next, indent))
			}
			steps[m[2]] = strings.Join(body, "\n")
		}
		jobs = append(jobs, steps)
	}
	return jobs
}

// docs/ci.md's jobs, GitHub's and GitLab's, run their measure and gate
// steps as written, with a job whose change hashes twice as much as its
// base: the gate exits 3 (compare's regression) and every file the page
// says it writes is there and reads as what it says. sudo is a shim (the
// tests run as root), throttlebench the binary under test, on the PATH.
func TestCIDocsSteps(t *testing.T) {
	needRoot(t)
	jobs := ciSteps(t)
	require.Len(t, jobs, 2, "a GitHub Actions workflow and a GitLab CI job")
	dir := t.TempDir()
	bin := filepath.Join(dir, "path")
	require.NoError(t, os.Mkdir(bin, 0o755))
	require.NoError(t, os.Symlink(binary, filepath.Join(bin, "throttlebench")))
	writeFile(t, filepath.Join(bin, "sudo"), "#!/bin/sh\nexec \"$@\"\n")
	require.NoError(t, os.Chmod(filepath.Join(bin, "sudo"), 0o755))
	job := filepath.Join(dir, "cpujob")
	out, err := exec.Command("go", "build", "-o", job, "./testdata/cpujob").CombinedOutput()
	require.NoError(t, err, "%s", out)

	for i, steps := range jobs {
		require.Contains(t, steps, "measure", "job %d", i)
		require.Contains(t, steps, "gate", "job %d", i)
		work, temp := filepath.Join(dir, "work", string(rune('a'+i))), filepath.Join(dir, "temp", string(rune('a'+i)))
		for _, tree := range []struct {
			root  string
			units string
		}{{filepath.Join(temp, "base"), "3000"}, {work, "6000"}} {
			require.NoError(t, os.MkdirAll(filepath.Join(tree.root, "bin"), 0o755))
			script := filepath.Join(tree.root, "bin", "myjob")
			writeFile(t, script, "#!/bin/sh\nexec "+job+" "+tree.units+"\n")
			require.NoError(t, os.Chmod(script, 0o755))
		}
		summary := filepath.Join(dir, "summary.md")
		env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "JOB=bin/myjob",
			"RUNNER_TEMP="+temp, "CI_BUILDS_DIR="+temp, "GITHUB_STEP_SUMMARY="+summary)
		step := func(name string) (int, string) {
			cmd := exec.Command("bash", "-e", "-c", steps[name])
			cmd.Dir, cmd.Env = work, env
			out, err := cmd.CombinedOutput()
			return exitStatus(err), string(out)
		}
		code, out := step("measure")
		require.Equal(t, 0, code, "job %d, measure: %s", i, out)
		code, out = step("gate")
		assert.Equal(t, 3, code, "job %d, gate: a change twice the CPU is a regression: %s", i, out)
		md, err := os.ReadFile(filepath.Join(work, "compare.md"))
		require.NoError(t, err)
		assert.Contains(t, string(md), "1 regression")
		assert.Contains(t, string(md), "the code")
		var bench []map[string]any
		data, err := os.ReadFile(filepath.Join(work, "bench.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &bench), "%s", data)
		assert.NotEmpty(t, bench)
		var bmf map[string]map[string]map[string]float64
		data, err = os.ReadFile(filepath.Join(work, "bmf.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &bmf), "%s", data)
		assert.NotEmpty(t, bmf)
		for _, f := range []string{"base.json", "change.json"} {
			assert.FileExists(t, filepath.Join(work, f))
		}
	}
	sum, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err, "GitHub's job appends the table to the job summary")
	assert.Contains(t, string(sum), "throttlebench compare")
}
