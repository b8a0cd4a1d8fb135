package kube

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/config"
)

// writePlugins writes one plugin definition per configuration into the
// directory output names (made if missing), whatever their number, so
// that plugins/*.yaml is the sweep's plugins; to stdout when there is one
// configuration and no output. The plugins are written whole into a
// temporary directory beside it first and moved in only when all are:
// an error leaves no part of the sweep behind. A directory holding
// throttlebench plugins that are not this sweep's is refused: a loop over
// its files would run them too.
func writePlugins(output string, stdout io.Writer, o Options, runs []Run, commandLine string) error {
	if output == "" {
		if len(runs) > 1 {
			return config.Usagef("output", "--emit sonobuoy writes one plugin file per configuration (%d here): give --output a directory", len(runs))
		}
		o.Header = sonobuoyHeader(o, runs[0], len(runs), commandLine, "plugin.yaml")
		return WriteSonobuoyPlugin(stdout, o, runs[0])
	}
	names := map[string]bool{}
	for _, r := range runs {
		names[PluginName(o.SweepID, r.Index)+".yaml"] = true
	}
	exists := false
	if fi, err := os.Stat(output); err == nil && !fi.IsDir() {
		return config.Usagef("output", "invalid --output %q: --emit sonobuoy writes its plugins, one file per configuration, into a directory; this is a file", output)
	} else if err == nil {
		exists = true
		entries, err := os.ReadDir(output)
		if err != nil {
			return config.Usagef("output", "invalid --output %q: %v", output, config.PathCause(err))
		}
		for _, e := range entries {
			if n := e.Name(); strings.HasPrefix(n, "throttlebench-") && strings.HasSuffix(n, ".yaml") && !names[n] {
				return config.Usagef("output", "invalid --output %q: it holds %s, a plugin that is not one of sweep %s's; a loop over its files would run it too: give a new or empty directory", output, n, o.SweepID)
			}
		}
	} else if err := config.Output("output", output); err != nil {
		// A new directory in an existing one.
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(output)), "."+filepath.Base(output)+".*.tmp")
	if err != nil {
		return config.Usagef("output", "invalid --output %q: %v", output, config.PathCause(err))
	}
	defer os.RemoveAll(tmp) // what was not moved into place
	for _, r := range runs {
		name := PluginName(o.SweepID, r.Index) + ".yaml"
		o.Header = sonobuoyHeader(o, r, len(runs), commandLine, filepath.Join(filepath.Base(output), name))
		if err := atomicfile.Write(filepath.Join(tmp, name), func(w io.Writer) error { return WriteSonobuoyPlugin(w, o, r) }); err != nil {
			return err
		}
	}
	if !exists {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		return os.Rename(tmp, output)
	}
	for _, r := range runs {
		name := PluginName(o.SweepID, r.Index) + ".yaml"
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(output, name)); err != nil {
			return err
		}
	}
	return nil
}
