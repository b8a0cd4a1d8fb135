//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal cols wide and returns its terminal side
// and the side that reads what is written to it, or skips where the
// machine has none to give (no /dev/ptmx, no devpts).
func openPTY(t *testing.T, cols int) (pts, ptm *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here to stand for a terminal: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	fd := int(ptm.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0), "unlockpt")
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err, "ptsname")
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no devpts mounted to open the terminal side: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	require.NoError(t, unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}))
	return pts, ptm
}

// A text table fits the terminal it is written to; anything else (a pipe,
// a file, --output) is 80 columns wide.
func TestTableWidth(t *testing.T) {
	pts, _ := openPTY(t, 123)
	assert.Equal(t, 123, tableWidth("", pts), "the terminal's width")
	assert.Equal(t, 80, tableWidth(filepath.Join(t.TempDir(), "out.txt"), pts), "--output goes to a file, not to the terminal")

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.Equal(t, 80, tableWidth("", w), "a pipe")
	f, err := os.Create(filepath.Join(t.TempDir(), "redirected"))
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, 80, tableWidth("", f), "stdout redirected to a file")
}

// sweep --from on a terminal 200 columns wide shows every column that
// varies; the same to a pipe (80) leaves some out and says which.
func TestSweepFromOnATerminal(t *testing.T) {
	pts, ptm := openPTY(t, 200)
	var errb bytes.Buffer
	require.Equal(t, exitOK, run([]string{"sweep", "--from", fixture("sweep.json")}, pts, &errb), errb.String())
	wide := strings.ReplaceAll(readUntil(t, ptm, "max"), "\r\n", "\n") // the terminal's own line ends
	assert.NotContains(t, wide, "left out to fit")
	assert.Contains(t, wide, "  p50_ms  p99_ms    cov  throttled_fraction")

	code, narrow, errs := runCLI("sweep", "--from", fixture("sweep.json"))
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, narrow, "left out to fit 80 columns: ")
	assert.NotEqual(t, wide, narrow)
}

// readUntil reads from f until what it read holds a whole line with want
// in it, or fails after a few seconds (closing f ends a read that waits).
func readUntil(t *testing.T, f *os.File, want string) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		var got []byte
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			got = append(got, buf[:n]...)
			if i := bytes.Index(got, []byte(want)); err != nil || i >= 0 && bytes.IndexByte(got[i:], '\n') >= 0 {
				done <- string(got)
				return
			}
		}
	}()
	select {
	case got := <-done:
		return got
	case <-time.After(5 * time.Second):
		f.Close()
		t.Fatalf("%q never came through the terminal", want)
		return ""
	}
}
