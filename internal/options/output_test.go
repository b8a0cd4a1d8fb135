package options

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --output, --plot and --trace-out are refused before any work where they
// name no place for a result: one line naming the flag (exit 2).
func TestOutputAndPlot(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, Output("output", ""), "stdout")
	require.NoError(t, Output("output", filepath.Join(dir, "new.json")))
	err := Output("output", filepath.Join(dir, "missing", "x.json"))
	refusedWith(t, err, "output", "does not exist")
	refusedWith(t, Output("output", dir), "output", "invalid --output")

	require.NoError(t, Plot(""))
	require.NoError(t, Plot(filepath.Join(dir, "chart.PNG")), "the extension in any case")
	err = Plot(filepath.Join(dir, "chart.pdf"))
	refusedWith(t, err, "plot", "want a file name ending in .svg or .png")
	err = Plot("/nonexistent/x.svg")
	refusedWith(t, err, "plot", "does not exist")
}
