package kube

import (
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/badinput"
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
			return badinput.Errorf("output", "--emit sonobuoy writes one plugin file per configuration (%d here): give --output a directory", len(runs))
		}
		o.Header = sonobuoyHeader(o, runs[0], len(runs), commandLine, "plugin.yaml")
		return WriteSonobuoyPlugin(stdout, o, runs[0])
	}
	names := map[string]bool{}
	var files []atomicfile.File
	for _, r := range runs {
		name := PluginName(o.SweepID, r.Index) + ".yaml"
		names[name] = true
		o := o
		o.Header = sonobuoyHeader(o, r, len(runs), commandLine, filepath.Join(filepath.Base(output), name))
		files = append(files, atomicfile.File{Name: name, Write: func(w io.Writer) error { return WriteSonobuoyPlugin(w, o, r) }})
	}
	// The directory is reached as any output is (atomicfile: no link
	// someone else planted is followed, on the way or as the directory
	// itself), and written relative to the descriptor that walk holds.
	err := atomicfile.WriteDir(output, files, func(existing []string) error {
		for _, n := range existing {
			if strings.HasPrefix(n, "throttlebench-") && strings.HasSuffix(n, ".yaml") && !names[n] {
				return badinput.Errorf("output", "invalid --output %q: it holds %s, a plugin that is not one of sweep %s's; a loop over its files would run it too: give a new or empty directory", output, n, o.SweepID)
			}
		}
		return nil
	})
	var te *atomicfile.TargetError
	if errors.As(err, &te) {
		return badinput.Errorf("output", "invalid --output %q: --emit sonobuoy writes its plugins, one file per configuration, into a directory; %v", output, te)
	}
	return err
}
