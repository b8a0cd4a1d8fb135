//go:build linux

package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTargetAccepts(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(existing, []byte("old"), 0o644))
	link := filepath.Join(dir, "latest.json")
	require.NoError(t, os.Symlink(existing, link))

	for _, c := range []struct{ name, in, want string }{
		{"an existing regular file", existing, existing},
		{"a new file in an existing directory", filepath.Join(dir, "new.json"), filepath.Join(dir, "new.json")},
		{"a link to a regular file is written through", link, existing},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Target(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestTargetRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling))
	toDevice := filepath.Join(dir, "to-null")
	require.NoError(t, os.Symlink("/dev/null", toDevice))
	notDir := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o644))

	cases := []struct{ name, in, why string }{
		{"a character device", "/dev/full", "not a regular file (a character device)"},
		{"a link to a device", toDevice, "/dev/null is not a regular file"},
		{"a directory", dir, "is a directory"},
		{"a named pipe", fifo, "a named pipe"},
		{"a dangling link", dangling, "leads nowhere"},
		{"a missing directory", filepath.Join(dir, "missing", "out.json"), "does not exist"},
		{"a file as directory", filepath.Join(notDir, "out.json"), "not a directory"},
		{"a proc file", "/proc/sys/kernel/hostname", "procfs, a kernel filesystem"},
		{"a sysfs file", "/sys/kernel/mm/transparent_hugepage/enabled", "sysfs, a kernel filesystem"},
		{"empty", "", "empty"},
	}
	if os.Geteuid() != 0 {
		// The permission bits bind only a user who is not root; the
		// integration suite runs this case as nobody.
		ro := filepath.Join(dir, "ro")
		require.NoError(t, os.Mkdir(ro, 0o555))
		cases = append(cases, struct{ name, in, why string }{"an unwritable directory", filepath.Join(ro, "out.json"), "not writable"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if system := !strings.HasPrefix(c.in, dir); system && c.in != "" {
				if _, err := os.Lstat(c.in); err != nil {
					t.Skipf("%s does not exist on this machine", c.in)
				}
			}
			_, err := Target(c.in)
			var te *TargetError
			require.ErrorAs(t, err, &te)
			assert.Contains(t, err.Error(), c.why)
		})
	}
	// Nothing was written, and the device is still a device.
	st, err := os.Lstat("/dev/full")
	if err == nil {
		assert.NotZero(t, st.Mode()&fs.ModeCharDevice, "/dev/full must stay a device")
	}
}

func TestWriteRefusesADevice(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	err := Write("/dev/full", func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	require.Error(t, err)
	st, err := os.Lstat("/dev/full")
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeCharDevice, "/dev/full was replaced")
}

func TestWriteThroughALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "run-1.json")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "latest.json")
	require.NoError(t, os.Symlink("run-1.json", link))

	require.NoError(t, Write(link, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }))
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link stays a link")
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
	assertOnly(t, dir, "latest.json", "run-1.json")
}

// A failed or panicking writer leaves the old file and no temporary file.
func TestWriteLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))

	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half a resu")
		return errors.New("render failed")
	})
	require.Error(t, err)
	assert.Panics(t, func() {
		Write(path, func(w io.Writer) error { io.WriteString(w, "half"); panic("boom") })
	})
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data))
	assertOnly(t, dir, "out.json")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}
