//go:build linux

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A failed subtest counts once (its parent and package not again); a
// package that fails outside any test counts under its own name.
func TestTallyCountsLeaves(t *testing.T) {
	run1 := `{"Action":"output","Package":"p","Test":"TestA/sub","Output":"bound broken\n"}
{"Action":"fail","Package":"p","Test":"TestA/sub"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestB"}
{"Action":"fail","Package":"p"}
{"Action":"fail","Package":"q"}
not json
`
	tl := newTally()
	assert.Equal(t, []string{"p TestA/sub", "q"}, tl.read(strings.NewReader(run1), 0))
	run2 := `{"Action":"pass","Package":"p","Test":"TestA/sub"}
{"Action":"fail","Package":"p","Test":"TestB"}
{"Action":"fail","Package":"p"}
`
	assert.Equal(t, []string{"p TestB"}, tl.read(strings.NewReader(run2), 1))
	assert.Equal(t, map[string][]int{"p TestA/sub": {1}, "q": {1}, "p TestB": {2}}, tl.fails)
	assert.Contains(t, tl.output["p TestA/sub"][0], "bound broken")
	assert.Equal(t, 1, tl.print(2))
	assert.Equal(t, 0, newTally().print(2))
}

// A guest's console: go test -v's leaves (a parent that failed with its
// subtest is left out, a test failed twice counts once), a go test that
// timed out, and the systemd guest's checks without their varying reason;
// the kernel's timestamps and the console's carriage returns ignored.
func TestGuestFailures(t *testing.T) {
	console := "[    3.1] guest: kernel 6.1.0\r\n" +
		"=== RUN   TestA\n" +
		"    --- FAIL: TestA/sub (0.10s)\n" +
		"--- FAIL: TestA (0.20s)\n" +
		"--- PASS: TestB (0.01s)\n" +
		"--- FAIL: TestC (1.00s)\r\n" +
		"--- FAIL: TestC (1.00s)\n" +
		"panic: test timed out after 10m0s\n" +
		"PASS run: rc 0\n" +
		"FAIL user with cpu: SIGINT rc 130: rc=1 scope=''\n" +
		"FAILED to start\n"
	assert.Equal(t, []string{"TestA/sub", "TestC", "go test timed out after 10m0s", "user with cpu: SIGINT rc 130"},
		guestFailures(strings.NewReader(console)))
	assert.Empty(t, guestFailures(strings.NewReader("--- PASS: TestA (0.1s)\nPASS\n")))
}
