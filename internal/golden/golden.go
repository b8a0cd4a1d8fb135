package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Update is -update: rewrite the golden files instead of comparing. It is
// the one -update flag: tests whose goldens lie elsewhere (cmd's examples)
// read it too.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Check compares got with testdata/name, or rewrites it with -update.
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test -run Golden -update creates %s", path)
	assert.Equal(t, string(want), got, "differs from %s; go test -update rewrites it", path)
}

// Fits checks that every line of a text table fits width columns, counted
// in runes (a table's box characters and µ are one column each).
func Fits(t testing.TB, got string, width int) {
	t.Helper()
	for _, l := range strings.Split(got, "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), width, "every line fits: %q", l)
	}
}
