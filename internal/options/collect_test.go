package options

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/badinput"
)

// What collect cannot take is refused before any input is read, as bad
// input (a badinput.Error) naming the flag or the input.
func TestCollectCheck(t *testing.T) {
	log := filepath.Join("..", "collect", "testdata", "single.log")
	require.NoError(t, Collect{}.Check([]string{"-", log, filepath.Join("..", "collect", "testdata")}))
	require.NoError(t, Collect{Nodes: []string{"node-a"}}.Check([]string{"-"}))
	for _, tc := range []struct {
		o      Collect
		inputs []string
		want   string
	}{
		{Collect{Output: "/dev/full"}, []string{"-"}, `invalid --output "/dev/full": /dev/full is not a regular file`},
		{Collect{Nodes: []string{"Node_A"}}, []string{"-"}, `invalid --node "Node_A": `},
		{Collect{}, []string{"-", log, "-"}, "invalid arguments: - (stdin) given 2 times; stdin can be read once"},
		{Collect{}, []string{"/nonexistent/pods.log"}, `invalid input "/nonexistent/pods.log": no such file or directory; want a log file, a results archive, a directory, or - for stdin`},
	} {
		err := tc.o.Check(tc.inputs)
		var e *badinput.Error
		require.ErrorAs(t, err, &e, tc.want)
		assert.Contains(t, err.Error(), tc.want)
	}
}
