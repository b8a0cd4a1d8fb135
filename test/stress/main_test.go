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
