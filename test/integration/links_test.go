//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Output written through a link someone else planted (issue 25): before,
// `ln -s /root/.secret /tmp/result.json` as nobody, then
// `throttlebench run -o /tmp/result.json` as root, replaced the root-only
// file with the result, mode 0644. Every output flag of every command now
// refuses such a link (exit 2, before anything runs), also when it is
// planted during the run, and leaves what it points at as it was.

const nobodyUID = 65534

// asNobody runs a command as uid 65534, as a local user would plant a link.
func asNobody(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyUID, Gid: nobodyUID}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "as nobody: %s %v: %s", name, args, out)
}

// secrets is a root-only directory (0700) holding a root-only file (0600):
// what a planted link points at.
type secrets struct{ dir, file string }

func newSecrets(t *testing.T) secrets {
	t.Helper()
	dir, err := os.MkdirTemp("", "tb-secret-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	file := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(file, []byte("root's secret\n"), 0o600))
	return secrets{dir, file}
}

// untouched: the file's content, mode and owner, and nothing new beside it.
func (s secrets) untouched(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(s.file)
	require.NoError(t, err)
	assert.Equal(t, "root's secret\n", string(data), "%s was written", s.file)
	assertModeOwner(t, s.file, 0o600, 0, 0)
	entries, err := os.ReadDir(s.dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"secret"}, names, "something was written into %s", s.dir)
}

func assertModeOwner(t *testing.T, p string, mode os.FileMode, uid, gid int) {
	t.Helper()
	st, err := os.Lstat(p)
	require.NoError(t, err)
	sys := st.Sys().(*syscall.Stat_t)
	assert.Equal(t, mode, st.Mode(), "mode of %s", p)
	assert.Equal(t, []int{uid, gid}, []int{int(sys.Uid), int(sys.Gid)}, "owner of %s", p)
}

// nobodysDir is a directory of nobody's own (0755), not sticky, in a
// directory of root's.
func nobodysDir(t *testing.T) string {
	t.Helper()
	top, err := os.MkdirTemp("", "tb-links-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(top) })
	require.NoError(t, os.Chmod(top, 0o755))
	d := filepath.Join(top, "nobodys")
	require.NoError(t, os.Mkdir(d, 0o755))
	require.NoError(t, os.Chown(d, nobodyUID, nobodyUID))
	return d
}

// runResult is one run's JSON result, the input of compare, collect and
// sweep --from.
func runResult(t *testing.T, parent string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.json")
	o := tb(t, "run", "--parent", parent, "--cpus", "1", "--batch", "1", "--iterations", "1", "-o", p)
	require.Equal(t, 0, o.code, o.stderr)
	return p
}

// Each output flag of each command, with nobody's link in /tmp (sticky,
// world-writable), in nobody's own directory, and as a directory on the
// way (/tmp/x -> a root-only directory, then x/new.json): exit 2 naming the
// flag, the link and its owner; the file behind it untouched.
func TestOutputRefusesAPlantedLink(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	in := runResult(t, parent)
	sec := newSecrets(t)
	nobodys := nobodysDir(t)
	// In the real /tmp, as the case: names of this test's own.
	tmp := func(name string) string {
		p := fmt.Sprintf("/tmp/tb-link-%d-%s", os.Getpid(), name)
		t.Cleanup(func() { os.Remove(p) })
		return p
	}
	// A link to the secret file, as a file name ending in ext, in each of
	// the three places.
	fileLinks := func(ext string) []string {
		a, b, c := tmp("file"+ext), filepath.Join(nobodys, "result"+ext), tmp("dir"+ext)
		asNobody(t, "ln", "-s", sec.file, a)
		asNobody(t, "ln", "-s", sec.file, b)
		asNobody(t, "ln", "-s", sec.dir, c)
		// The file itself, then the directory on the way, to a new file in
		// the root-only directory.
		return []string{a, b, filepath.Join(c, "new"+ext)}
	}
	dirLinks := func(name string) []string {
		a, b := tmp(name), filepath.Join(nobodys, name)
		asNobody(t, "ln", "-s", sec.dir, a)
		asNobody(t, "ln", "-s", sec.dir, b)
		return []string{a, b, filepath.Join(a, "new")}
	}
	// The links for each case are planted once and used by all of its
	// variants: each must come out refused.
	jsons, svg, csv, yamls := fileLinks(".json"), fileLinks(".svg"), fileLinks(".csv"), fileLinks(".yaml")
	dirs := dirLinks("dir")
	cgroupLinks := func() []string {
		a := tmp("parent")
		asNobody(t, "ln", "-s", parent, a)
		return []string{a}
	}()

	run := []string{"run", "--cpus", "0.5", "--batch", "5", "--iterations", "2", "--parent", parent}
	sweep := []string{"sweep", "--cpus", "0.5,1", "--batch", "5", "--iterations", "2", "--parent", parent}
	latency := []string{"latency", "--cpus", "0.5", "--count", "2", "--parent", parent}
	sample := []string{"sample", "--duration", "1s"}
	for _, c := range []struct {
		flag  string
		args  []string
		paths []string
	}{
		{"output", append(run, "-o"), jsons},
		{"plot", append(run, "--trace", "--plot"), svg},
		{"trace-out", append(run, "--trace-out"), csv},
		{"sonobuoy-results", append(run, "--sonobuoy-results"), dirs},
		{"parent", []string{"run", "--cpus", "0.5", "--batch", "5", "--iterations", "2", "--parent"}, cgroupLinks},
		{"parent", []string{"cleanup", "--parent"}, cgroupLinks},
		{"output", append(sweep, "-o"), jsons},
		{"plot", append(sweep, "--plot"), svg},
		{"output", []string{"sweep", "--cpus", "0.5,1", "--emit", "kubernetes", "-o"}, yamls},
		{"output", []string{"sweep", "--cpus", "0.5,1", "--emit", "sonobuoy", "-o"}, dirs},
		{"output", []string{"sweep", "--from", in, "-o"}, jsons},
		{"plot", []string{"sweep", "--from", in, "--plot"}, svg},
		{"output", append(latency, "-o"), jsons},
		{"plot", append(latency, "--plot"), svg},
		{"trace-out", append(latency, "--trace-out"), jsons},
		{"output", append(sample, "-o"), jsons},
		{"plot", append(sample, "--plot"), svg},
		{"trace-out", append(sample, "--trace-out"), jsons},
		{"output", []string{"simulate", "-o"}, jsons},
		{"plot", []string{"simulate", "--plot"}, svg},
		{"output", []string{"collect", in, "-o"}, jsons},
		{"output", []string{"compare", in, in, "-o"}, jsons},
	} {
		for _, p := range c.paths {
			args := append(append([]string{}, c.args...), p)
			t.Run(args[0]+" --"+c.flag+" "+p, func(t *testing.T) {
				start := time.Now()
				o := tb(t, args...)
				assert.Equal(t, 2, o.code, o.stderr)
				assert.Contains(t, o.stderr, fmt.Sprintf("invalid --%s %q", c.flag, p))
				assert.Contains(t, o.stderr, "is a symbolic link owned by nobody (uid 65534)")
				assert.Equal(t, 1, strings.Count(strings.TrimSpace(o.stderr), "\n")+1, "one line: %s", o.stderr)
				// Before anything runs: each refusal took 0-10 ms here (the
				// 66 cases, 0.30 s in all).
				assert.Less(t, time.Since(start), 2*time.Second)
				sec.untouched(t)
			})
		}
	}
	assert.Empty(t, subdirs(t, parent), "a slice was made before the refusal")
}

// A link of root's own, or of the invoking user's under sudo, is still
// written through; replacing keeps the target's mode and owner; a new file
// under sudo is the invoking user's.
func TestOutputLinksThatAreFollowed(t *testing.T) {
	parent := testParent(t, needRoot(t))
	dir, err := os.MkdirTemp("", "tb-own-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	run := func(t *testing.T, env []string, args ...string) {
		t.Helper()
		cmd := exec.Command(binary, jsonByDefault(append([]string{"run", "--parent", parent, "--cpus", "1", "--batch", "1", "--iterations", "1"}, args...))...)
		cmd.Env = append(os.Environ(), env...)
		o := runCmd(t, cmd)
		require.Equal(t, 0, o.code, o.stderr)
	}
	isResult := func(t *testing.T, p string) {
		t.Helper()
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		var v map[string]any
		require.NoError(t, json.Unmarshal(data, &v), "%s holds no result", p)
	}

	t.Run("root's link in /tmp and in root's directory", func(t *testing.T) {
		target := filepath.Join(dir, "run-1.json")
		require.NoError(t, os.WriteFile(target, []byte("old"), 0o600))
		inTmp := fmt.Sprintf("/tmp/tb-ownlink-%d.json", os.Getpid())
		t.Cleanup(func() { os.Remove(inTmp) })
		require.NoError(t, os.Symlink(target, inTmp))
		require.NoError(t, os.Symlink("run-1.json", filepath.Join(dir, "latest.json")))
		for _, link := range []string{inTmp, filepath.Join(dir, "latest.json")} {
			require.NoError(t, os.WriteFile(target, []byte("old"), 0o600))
			run(t, nil, "-o", link)
			isResult(t, target)
			assertModeOwner(t, target, 0o600, 0, 0)
			st, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, st.Mode()&os.ModeSymlink, "%s stays a link", link)
		}
	})
	t.Run("replacing keeps mode and owner", func(t *testing.T) {
		p := filepath.Join(dir, "theirs.json")
		require.NoError(t, os.WriteFile(p, []byte("old"), 0o640))
		require.NoError(t, os.Chown(p, nobodyUID, nobodyUID))
		run(t, nil, "-o", p)
		isResult(t, p)
		assertModeOwner(t, p, 0o640, nobodyUID, nobodyUID)
	})
	t.Run("a new file under sudo is the invoking user's", func(t *testing.T) {
		p := filepath.Join(dir, "new.json")
		run(t, []string{"SUDO_UID=65534", "SUDO_GID=65534"}, "-o", p)
		isResult(t, p)
		assertModeOwner(t, p, 0o644, nobodyUID, nobodyUID)
		// Not numbers: root's, as without sudo.
		q := filepath.Join(dir, "new-root.json")
		run(t, []string{"SUDO_UID=nobody", "SUDO_GID=65534"}, "-o", q)
		assertModeOwner(t, q, 0o644, 0, 0)
	})
	t.Run("under sudo, the invoking user's own link in their directory", func(t *testing.T) {
		own := nobodysDir(t)
		target := filepath.Join(own, "run-1.json")
		asNobody(t, "sh", "-c", "echo old > "+target+" && chmod 600 "+target+" && ln -s run-1.json "+filepath.Join(own, "latest.json"))
		run(t, []string{"SUDO_UID=65534", "SUDO_GID=65534"}, "-o", filepath.Join(own, "latest.json"))
		isResult(t, target)
		assertModeOwner(t, target, 0o600, nobodyUID, nobodyUID)
	})
}

// A link planted while the work runs, after the check: at the write it is
// refused, not followed. throttlebench is stopped (SIGSTOP) at the moment
// to plant it, so that the test does not race the run: a save of this
// sweep comes every 30-50 ms here.
func TestOutputLinkPlantedDuringTheRun(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)

	// start runs the binary, waits until ready says the moment has come,
	// stops it there, lets plant run, and lets it go on.
	start := func(t *testing.T, ready func() bool, plant func(), args ...string) outcome {
		t.Helper()
		var out, errb strings.Builder
		cmd := exec.Command(binary, jsonByDefault(args)...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Start())
		deadline := time.Now().Add(time.Minute)
		for !ready() {
			require.True(t, time.Now().Before(deadline), "never ready: %s", errb.String())
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
		plant()
		require.NoError(t, cmd.Process.Signal(syscall.SIGCONT))
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return outcome{code: code, stdout: out.String(), stderr: errb.String()}
	}
	exists := func(p string) func() bool {
		return func() bool { _, err := os.Lstat(p); return err == nil }
	}
	sweep := []string{"sweep", "--cpus", "0.3,0.4,0.5,0.6", "--batch", "5", "--iterations", "2", "--parent", parent, "-q", "-o"}

	t.Run("a sweep's file swapped for a link after its first save", func(t *testing.T) {
		sec := newSecrets(t)
		out := filepath.Join(nobodysDir(t), "out.json")
		o := start(t, exists(out), func() {
			asNobody(t, "sh", "-c", "rm "+out+" && ln -s "+sec.file+" "+out)
		}, append(sweep, out)...)
		assert.Equal(t, 1, o.code, o.stderr)
		assert.Contains(t, o.stderr, out+" is a symbolic link owned by nobody (uid 65534)")
		sec.untouched(t)
	})
	t.Run("a sweep's directory swapped for a link after its first save", func(t *testing.T) {
		sec := newSecrets(t)
		nobodys := nobodysDir(t)
		sub := filepath.Join(nobodys, "sub")
		asNobody(t, "mkdir", sub)
		out := filepath.Join(sub, "secret")
		o := start(t, exists(out), func() {
			asNobody(t, "sh", "-c", "mv "+sub+" "+sub+".old && ln -s "+sec.dir+" "+sub)
		}, append(sweep, out)...)
		assert.Equal(t, 1, o.code, o.stderr)
		assert.Contains(t, o.stderr, sub+" is a symbolic link owned by nobody (uid 65534)")
		sec.untouched(t)
	})
	t.Run("a link in /tmp planted while a run works", func(t *testing.T) {
		sec := newSecrets(t)
		out := fmt.Sprintf("/tmp/tb-link-%d-late.json", os.Getpid())
		t.Cleanup(func() { os.Remove(out) })
		// The run has started once its slice exists.
		sliceMade := func() bool { return len(subdirs(t, parent)) > 0 }
		o := start(t, sliceMade, func() { asNobody(t, "ln", "-s", sec.file, out) },
			"run", "--cpus", "0.5", "--batch", "5", "--iterations", "2", "--parent", parent, "-o", out)
		assert.Equal(t, 1, o.code, o.stderr)
		assert.Contains(t, o.stderr, out+" is a symbolic link owned by nobody (uid 65534) in /tmp")
		sec.untouched(t)
	})
}
