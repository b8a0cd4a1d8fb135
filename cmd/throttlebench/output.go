package main

import (
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// writeOutput writes what render produces to stdout, or atomically to path.
func writeOutput(path string, stdout io.Writer, render func(io.Writer) error) error {
	if path == "" {
		return render(stdout)
	}
	return atomicfile.Write(path, render)
}

// The one rule for output formats (issue 28): text, for a person, unless
// told otherwise: --format, or the extension of the file -o names, so that
// `run -o base.json` writes what compare reads. The same on a terminal and
// in a pipe: scripts and CI name --format json. An extension that names a
// format the command does not write is refused (issue 33): `run -o r.csv`
// wrote text under a CSV name.
const formatsAnnotation = "throttlebench-formats"

// extFormats are the extensions -o infers a format from.
var extFormats = map[string]string{".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".txt": "text",
	".yaml": "yaml", ".yml": "yaml"}

// formatExts are the formats' extensions, as a refusal names them.
var formatExts = map[string]string{"json": ".json", "csv": ".csv", "markdown": ".md", "text": ".txt", "yaml": ".yaml"}

// outputOnly are the formats of the commands whose -o has no --format
// beside it.
var outputOnly = map[string][]string{"collect": {"json"}}

// formatFlag registers --format with the formats a command writes; its
// default is text (every command writes text).
// The help names the extensions of the formats it writes alone: sample's
// said .md, which it refuses (issue 33).
func formatFlag(f *pflag.FlagSet, p *string, formats []string) {
	var exts []string
	for _, name := range formats {
		if e, ok := formatExts[name]; ok && extFormats[e] == name {
			exts = append(exts, e)
		}
	}
	f.StringVar(p, "format", "text", "output format: "+strings.Join(formats, ", ")+"; without it, what -o's extension names ("+strings.Join(exts, ", ")+"), else text")
	_ = f.SetAnnotation("format", formatsAnnotation, formats)
}

// formatFromOutput sets --format from -o's extension where --format was
// not given; it runs before every command, so a refusal creates nothing.
// An extension that names no format (.out) leaves text.
func formatFromOutput(cmd *cobra.Command) error {
	f, o := cmd.Flags().Lookup("format"), cmd.Flags().Lookup("output")
	if o == nil || o.Value.String() == "" || f != nil && f.Changed {
		return nil
	}
	name, ok := extFormats[strings.ToLower(filepath.Ext(o.Value.String()))]
	if !ok {
		return nil
	}
	what, writes := cmd.Name(), outputOnly[cmd.Name()]
	if f != nil {
		writes = f.Annotations[formatsAnnotation]
	}
	if e := cmd.Flags().Lookup("emit"); e != nil && e.Changed {
		if e.Value.String() != "kubernetes" {
			return nil // sonobuoy's -o is a directory
		}
		// Its YAML is no --format: the name is all there is to check.
		what, writes, f = "sweep --emit kubernetes", []string{"yaml"}, nil
	}
	switch {
	case slices.Contains(writes, name) && f != nil:
		return f.Value.Set(name)
	case slices.Contains(writes, name):
		return nil
	}
	var exts []string
	for _, w := range writes {
		if e, ok := formatExts[w]; ok {
			exts = append(exts, e)
		}
	}
	hint := "; give the file one of those extensions"
	if len(exts) == 1 {
		hint = "; give the file that extension"
	}
	if f != nil && len(writes) > 1 {
		hint += ", or --format to write one of them under this name"
	}
	return badinput.Errorf("output", "invalid --output %q: %s writes %s (%s), not %s%s",
		o.Value.String(), what, strings.Join(writes, ", "), strings.Join(exts, ", "), name, hint)
}

// given is what the user gave cmd, for the modes' table (internal/options): whether each flag
// was given, its value as given, and the flags given in name order.
func given(cmd *cobra.Command) options.Given {
	g := options.Given{Changed: cmd.Flags().Changed, Value: func(name string) string {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}}
	cmd.Flags().Visit(func(f *pflag.Flag) { g.Names = append(g.Names, f.Name) })
	return g
}

// view is how a command's tables show: --columns, and the width they fit
// (tableWidth).
func view(s options.Settings, stdout io.Writer) table.View {
	return table.View{Columns: s.Columns, Width: tableWidth(s.Output, stdout)}
}

// traceFiles has a traced window written to the files the flags named:
// --trace-out's events, --plot's timeline (options.TraceOutputs, read at
// the write: latency names the timeline once it has planned).
func traceFiles(s *options.Settings) {
	out := s.Out
	s.TraceSink = func(tr throttle.Trace) error {
		if out == nil {
			return nil
		}
		var errs []error
		if out.Events != "" {
			errs = append(errs, throttle.EventsFile(out.Events, tr))
		}
		if out.Timeline != "" {
			errs = append(errs, plot.SaveTimeline(out.Timeline, tr, out.Title))
		}
		return errors.Join(errs...)
	}
}
