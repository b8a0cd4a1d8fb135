package kube

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The result, then the done file naming it; a failed run's reason instead
// of a result, in Sonobuoy's error form.
func TestWriteResult(t *testing.T) {
	dir := t.TempDir()
	path, err := WriteResult(dir, []byte("{\"x\": 1}\n"), "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, SonobuoyResultFile), path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "{\"x\": 1}\n", string(data))
	done, err := os.ReadFile(filepath.Join(dir, "done"))
	require.NoError(t, err)
	assert.Equal(t, path, string(done), "the done file holds the result's path, nothing else")

	dir = t.TempDir()
	path, err = WriteResult(dir, nil, "it broke")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, SonobuoyErrorFile), path)
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	var e map[string]string
	require.NoError(t, json.Unmarshal(data, &e))
	assert.Equal(t, map[string]string{"error": "throttlebench: it broke"}, e)
	assert.NoFileExists(t, filepath.Join(dir, SonobuoyResultFile))
}

func TestCheckResultsDir(t *testing.T) {
	dir := t.TempDir()
	assert.NoError(t, CheckResultsDir(dir, "", "json"))
	usage(t, CheckResultsDir(dir, "x.json", "json"), "output", "conflicts with --sonobuoy-results")
	usage(t, CheckResultsDir(dir, "", "text"), "format", `--format "text" cannot be used with --sonobuoy-results`)
	usage(t, CheckResultsDir(filepath.Join(dir, "none"), "", "json"), "sonobuoy-results", "no such file or directory; want the plugin's results directory")
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	usage(t, CheckResultsDir(file, "", "json"), "sonobuoy-results", "not a directory")
}
