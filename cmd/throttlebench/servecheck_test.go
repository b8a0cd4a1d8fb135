package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --serve on a port something already listens on: refused before
// anything is made, in one line naming the process that holds it (here,
// this test's), so that a server not ours is never measured (issue 33).
func TestServeTakenPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	addr := l.Addr().String()
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI("latency", "--target", "http://"+addr+"/", "-o", out, "--serve", "--", "true")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	assert.Contains(t, stderr, "--target: "+addr+" is in use by pid "+strconv.Itoa(os.Getpid())+" (")
	assert.Contains(t, stderr, "--serve starts its own server there")
	assert.NoFileExists(t, out)

	// localhost names it too; {port} picks another and is not refused here.
	_, port, _ := net.SplitHostPort(addr)
	code, _, stderr = runCLI("latency", "--target", "http://localhost:"+port+"/", "--serve", "--", "true")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "is in use by pid "+strconv.Itoa(os.Getpid()))
}
