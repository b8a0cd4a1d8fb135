package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"golang.org/x/term"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

// writeOutput writes what render produces to stdout, or atomically to path.
func writeOutput(path string, stdout io.Writer, render func(io.Writer) error) error {
	if path == "" {
		return render(stdout)
	}
	return atomicfile.Write(path, render)
}

// tableWidth is the width a text table fits: the terminal's, when the
// output goes to stdout and stdout is one; table.DefaultWidth (80) for a
// pipe or a file (path, --output).
func tableWidth(path string, stdout io.Writer) int {
	if f, ok := stdout.(*os.File); ok && path == "" && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return table.DefaultWidth
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
	return config.Usagef("output", "invalid --output %q: %s writes %s (%s), not %s%s",
		o.Value.String(), what, strings.Join(writes, ", "), strings.Join(exts, ", "), name, hint)
}

// warnOnce writes warnings to stderr, one "warning: " line each and each
// line once, wherever the output does not show them to a person already:
// every format but text on stdout (a benchstat user's gobench, JSON to a
// pipe, a file). Where a list's configurations warn, the line says which.
func warnOnce(stderr io.Writer, format, output string, warnings []labelled) {
	if format == "text" && output == "" {
		return
	}
	seen := map[string]bool{}
	for _, w := range warnings {
		line := "warning: " + w.text
		if w.label != "" {
			line = "warning: " + w.label + ": " + w.text
		}
		if !seen[line] {
			seen[line] = true
			_, _ = io.WriteString(stderr, line+"\n")
		}
	}
}

// closedLoopWarnings are a run's or sweep's warnings for stderr: in a
// format compare cannot read (text, CSV, markdown) without the note that
// compare could never find a change in the result, which matters only
// where a JSON result is kept to be compared.
func closedLoopWarnings(format string, ws []string) []string {
	if format == "json" {
		return ws
	}
	return render.ForPeople(ws)
}

// labelled is a warning and the configuration it is about ("" for a single
// one).
type labelled struct{ label, text string }

// unlabelled are one result's warnings.
func unlabelled(ws []string) []labelled {
	out := make([]labelled, len(ws))
	for i, w := range ws {
		out[i] = labelled{text: w}
	}
	return out
}

// outcomeWarnings are a list's warnings, each labelled with its
// configuration where there are several, but for those every
// configuration has, said once unlabelled first.
func outcomeWarnings[R any](rows []sweep.Outcome[R], warnings func(R) []string) []labelled {
	// A warning every configuration has is said once, unlabelled.
	shared := sweep.SharedWarnings(rows, warnings)
	var out []labelled
	for _, w := range shared {
		out = append(out, labelled{text: w})
	}
	for _, r := range rows {
		if r.Skipped != "" {
			continue
		}
		for _, w := range warnings(r.Report) {
			if slices.Contains(shared, w) {
				continue
			}
			l := labelled{text: w}
			if len(rows) > 1 {
				l.label = sweep.Describe(r.Config)
			}
			out = append(out, l)
		}
	}
	return out
}
