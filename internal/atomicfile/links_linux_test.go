//go:build linux

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/testenv"
)

// These tests plant links as other users do: made by root, then given to
// uid 65534 (nobody) or another uid with lchown, which is all the rule
// looks at. The integration suite (test/integration/links_test.go) plants
// them as nobody itself, against the real binary.

const nobody = 65534

func needRoot(t *testing.T) {
	t.Helper()
	testenv.NeedRoot(t, "to give files to other users")
}

// victim is a root-only file that must come out of every test as it went in.
func victim(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(p, []byte("root's"), 0o600))
	return p
}

func assertUntouched(t *testing.T, p string) {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "root's", string(data), "%s was written", p)
	st, err := os.Lstat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode(), "%s's mode changed", p)
	assert.Equal(t, uint32(0), st.Sys().(*syscall.Stat_t).Uid, "%s's owner changed", p)
}

// dirOf makes a directory with the given mode and owner (mode set after
// the umask).
func dirOf(t *testing.T, parent, name string, mode os.FileMode, uid int) string {
	t.Helper()
	d := filepath.Join(parent, name)
	require.NoError(t, os.Mkdir(d, 0o700))
	require.NoError(t, os.Chown(d, uid, uid))
	require.NoError(t, os.Chmod(d, mode))
	return d
}

func linkOf(t *testing.T, target, link string, uid int) {
	t.Helper()
	require.NoError(t, os.Symlink(target, link))
	require.NoError(t, os.Lchown(link, uid, uid))
}

func writeString(path, s string) error {
	return Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

// writeStringBetween is writeString with between run between the walk and
// the write.
func writeStringBetween(path, s string, between func()) error {
	return writeFileBetween(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err }, between)
}

func TestLinkRule(t *testing.T) {
	needRoot(t)
	top := t.TempDir()
	require.NoError(t, os.Chmod(top, 0o755))
	sticky := dirOf(t, top, "tmp", 0o777|os.ModeSticky, 0)               // as /tmp
	nobodys := dirOf(t, top, "nobodys", 0o755, nobody)                   // another user's own directory
	stickyNobody := dirOf(t, top, "shared", 0o777|os.ModeSticky, nobody) // a sticky one of nobody's
	own := filepath.Join(top, "own.json")
	require.NoError(t, os.WriteFile(own, []byte("x"), 0o644))

	for _, c := range []struct {
		name    string
		dir     string
		owner   int
		sudo    string // SUDO_UID=SUDO_GID, "" for none
		refused string // "" when followed
	}{
		{"nobody's link in a sticky world-writable directory", sticky, nobody, "", "fs.protected_symlinks"},
		{"nobody's link in nobody's own directory", nobodys, nobody, "", "not by root, who runs this"},
		{"nobody's link in nobody's sticky directory", stickyNobody, nobody, "", "not by root, who runs this"},
		{"root's link in a sticky directory of root's", sticky, 0, "", ""},
		{"root's link in nobody's sticky directory", stickyNobody, 0, "", ""},
		{"under sudo, root's link in nobody's sticky directory", stickyNobody, 0, "1000", "fs.protected_symlinks"},
		{"under sudo, the invoking user's link in /tmp", sticky, 1000, "1000", ""},
		{"under sudo, root's link in /tmp", sticky, 0, "1000", ""},
		{"under sudo, the invoking user's link in nobody's directory", nobodys, 1000, "1000", ""},
		{"under sudo, uid 1001's link in nobody's directory", nobodys, 1001, "1000", "(uid 1000), nor root"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.sudo != "" {
				t.Setenv("SUDO_UID", c.sudo)
				t.Setenv("SUDO_GID", c.sudo)
			}
			link := filepath.Join(c.dir, "latest.json")
			linkOf(t, own, link, c.owner)
			t.Cleanup(func() { os.Remove(link) })
			got, err := Target(link)
			if c.refused == "" {
				require.NoError(t, err)
				assert.Equal(t, own, got)
				return
			}
			var te *TargetError
			require.ErrorAs(t, err, &te)
			assert.Contains(t, err.Error(), link+" is a symbolic link owned by ")
			assert.Contains(t, err.Error(), c.refused)
			assert.ErrorAs(t, CheckLinks(link), &te)
		})
	}
}

// Nobody's link in /tmp, in their own directory, as a directory on the way,
// or anywhere in a chain of links: refused before and at the write, and
// what it points at stays as it was.
func TestWriteRefusesAPlantedLink(t *testing.T) {
	needRoot(t)
	top := t.TempDir()
	require.NoError(t, os.Chmod(top, 0o755))
	sticky := dirOf(t, top, "tmp", 0o777|os.ModeSticky, 0)
	nobodys := dirOf(t, top, "nobodys", 0o755, nobody)
	secret := victim(t)
	secretDir := filepath.Dir(secret)

	linkOf(t, secret, filepath.Join(sticky, "result.json"), nobody)
	linkOf(t, secret, filepath.Join(nobodys, "result.json"), nobody)
	linkOf(t, secretDir, filepath.Join(sticky, "out"), nobody)
	// A chain: root's own link leads to nobody's.
	require.NoError(t, os.Symlink(filepath.Join(sticky, "result.json"), filepath.Join(top, "chain.json")))

	for _, out := range []string{
		filepath.Join(sticky, "result.json"),
		filepath.Join(nobodys, "result.json"),
		filepath.Join(sticky, "out", "secret"),
		filepath.Join(top, "chain.json"),
	} {
		t.Run(out, func(t *testing.T) {
			_, err := Target(out)
			var te *TargetError
			require.ErrorAs(t, err, &te)
			assert.Contains(t, err.Error(), "symbolic link owned by nobody (uid 65534)")
			err = writeString(out, "json")
			require.ErrorAs(t, err, &te)
			assertUntouched(t, secret)
			assertOnly(t, secretDir, "secret")
		})
	}
}

// A link swapped in between the walk and the write (writeFileBetween) is not
// followed: a directory on the way swapped for a link leaves the file in
// the directory walked; the file's own name swapped for one is not
// replaced. The next write (a sweep's next save) refuses the link.
func TestLinkSwappedInDuringTheRun(t *testing.T) {
	needRoot(t)
	top := t.TempDir()
	require.NoError(t, os.Chmod(top, 0o755))
	shared := dirOf(t, top, "shared", 0o777, nobody)
	secret := victim(t)
	secretDir := filepath.Dir(secret)

	t.Run("a directory on the way", func(t *testing.T) {
		sub := dirOf(t, shared, "sub", 0o755, 0)
		out := filepath.Join(sub, "secret")
		require.NoError(t, writeStringBetween(out, "json", func() {
			require.NoError(t, os.Rename(sub, sub+".old"))
			linkOf(t, secretDir, sub, nobody)
		}))
		data, err := os.ReadFile(filepath.Join(sub+".old", "secret"))
		require.NoError(t, err)
		assert.Equal(t, "json", string(data), "the file goes where the walk went")
		assertUntouched(t, secret)
		assertOnly(t, secretDir, "secret")

		err = writeString(out, "json")
		var te *TargetError
		require.ErrorAs(t, err, &te)
		assert.Contains(t, err.Error(), sub+" is a symbolic link owned by nobody (uid 65534)")
		assertUntouched(t, secret)
	})
	t.Run("the file's own name", func(t *testing.T) {
		out := filepath.Join(shared, "result.json")
		err := writeStringBetween(out, "json", func() { linkOf(t, secret, out, nobody) })
		var te *TargetError
		require.ErrorAs(t, err, &te)
		assert.Contains(t, err.Error(), "became a symbolic link since it was checked")
		assertUntouched(t, secret)
		st, err := os.Lstat(out)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&os.ModeSymlink, "the planted link is left as it is")
		assertOnly(t, shared, "result.json", "sub.old", "sub")

		err = writeString(out, "json")
		require.ErrorAs(t, err, &te)
		assert.Contains(t, err.Error(), "a link someone else made is never followed")
		assertUntouched(t, secret)
	})
}

// Replacing keeps the old file's permission bits and owner; a new file is
// 0644, and the invoking user's under sudo when SUDO_UID and SUDO_GID are
// numbers.
func TestWriteKeepsModeAndOwner(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(old, []byte("old"), 0o600))
	require.NoError(t, os.Chown(old, nobody, nobody))
	require.NoError(t, os.Chmod(old, 0o640|os.ModeSetuid))
	require.NoError(t, writeString(old, "new"))
	assertFile(t, old, "new", 0o640, nobody, nobody)

	// Written through root's own link: the target keeps its mode.
	link := filepath.Join(dir, "latest.json")
	require.NoError(t, os.Symlink("old.json", link))
	require.NoError(t, writeString(link, "newer"))
	assertFile(t, old, "newer", 0o640, nobody, nobody)

	for _, c := range []struct {
		uid, gid string
		want     int
	}{
		{"", "", 0},
		{"1000", "1001", 1000},
		{"1000", "", 0},
		{"x1000", "1000", 0},
		{"-1", "-1", 0},
	} {
		t.Setenv("SUDO_UID", c.uid)
		t.Setenv("SUDO_GID", c.gid)
		p := filepath.Join(dir, "new-"+c.uid+"-"+c.gid+".json")
		require.NoError(t, writeString(p, "new"))
		gid := c.want
		if c.want != 0 {
			gid = 1001
		}
		assertFile(t, p, "new", 0o644, c.want, gid)
	}
	assertOnly(t, dir, "old.json", "latest.json", "new--.json", "new-1000-1001.json", "new-1000-.json", "new-x1000-1000.json", "new--1--1.json")
}

func assertFile(t *testing.T, p, content string, mode os.FileMode, uid, gid int) {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, content, string(data))
	st, err := os.Lstat(p)
	require.NoError(t, err)
	assert.Equal(t, mode, st.Mode(), "mode of %s", p)
	sys := st.Sys().(*syscall.Stat_t)
	assert.Equal(t, []int{uid, gid}, []int{int(sys.Uid), int(sys.Gid)}, "owner of %s", p)
}

func TestWriteDir(t *testing.T) {
	needRoot(t)
	top := t.TempDir()
	require.NoError(t, os.Chmod(top, 0o755))
	files := []File{
		{"a.yaml", func(w io.Writer) error { _, err := io.WriteString(w, "a"); return err }},
		{"b.yaml", func(w io.Writer) error { _, err := io.WriteString(w, "b"); return err }},
	}
	t.Setenv("SUDO_UID", "1000")
	t.Setenv("SUDO_GID", "1000")

	fresh := filepath.Join(top, "plugins")
	require.NoError(t, WriteDir(fresh, files, nil))
	st, err := os.Stat(fresh)
	require.NoError(t, err)
	assert.Equal(t, os.ModeDir|0o755, st.Mode())
	assert.Equal(t, uint32(1000), st.Sys().(*syscall.Stat_t).Uid)
	assertFile(t, filepath.Join(fresh, "a.yaml"), "a", 0o644, 1000, 1000)
	assertOnly(t, top, "plugins")

	// Again into the existing directory: each file replaced, keeping its
	// mode; check sees what is there.
	require.NoError(t, os.Chmod(filepath.Join(fresh, "b.yaml"), 0o600))
	var seen []string
	require.NoError(t, WriteDir(fresh, files, func(names []string) error { seen = names; return nil }))
	assert.ElementsMatch(t, []string{"a.yaml", "b.yaml"}, seen)
	assertFile(t, filepath.Join(fresh, "b.yaml"), "b", 0o600, 1000, 1000)

	// Nobody's link to a root directory, in /tmp or as a directory on the
	// way: refused, nothing written there.
	sticky := dirOf(t, top, "tmp", 0o777|os.ModeSticky, 0)
	secret := victim(t)
	linkOf(t, filepath.Dir(secret), filepath.Join(sticky, "plugins"), nobody)
	for _, out := range []string{filepath.Join(sticky, "plugins"), filepath.Join(sticky, "plugins", "new")} {
		err := WriteDir(out, files, nil)
		var te *TargetError
		require.ErrorAs(t, err, &te, out)
		assert.Contains(t, err.Error(), "owned by nobody (uid 65534)")
		assertOnly(t, filepath.Dir(secret), "secret")
	}
	// A writer's error leaves nothing.
	bad := append(files, File{"c.yaml", func(w io.Writer) error { return io.ErrUnexpectedEOF }})
	require.Error(t, WriteDir(filepath.Join(top, "half"), bad, nil))
	assertOnly(t, top, "plugins", "tmp")
}
