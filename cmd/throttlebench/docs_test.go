package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/inspect"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sizing"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// The README and docs/ say what to type and what comes back; this holds
// them to the binary: every `throttlebench COMMAND` they show names a
// command, every --flag they show (in code blocks and code spans) is one of
// that command's (a bare one in a page's flag table, the page's command's;
// elsewhere, some command's), and every key in a table headed `| key |` is
// a key of a JSON result. A flag, key or command renamed or removed fails
// here until the docs follow.

// pageCommands are the commands a page's flag tables document.
var pageCommands = map[string][]string{
	"run.md":      {"run"},
	"sweep.md":    {"sweep"},
	"latency.md":  {"latency"},
	"sample.md":   {"sample"},
	"simulate.md": {"simulate"},
	"inspect.md":  {"inspect"},
	"compare.md":  {"compare"},
	"cleanup.md":  {"cleanup"},
	"cluster.md":  {"sweep", "collect"},
	"show.md":     {"show"},
}

// foreignFlags are other programs' flags the docs show in code spans of
// their own (docker's, kubectl's, cyclictest's...), never throttlebench's.
var foreignFlags = []string{
	"--cpu-period", "--cpu-quota", "--cpuset-cpus", // docker run
	"--prefix", "--tail", "--ignore-errors", "--timestamps", "--for", // kubectl
	"--user", // systemd-run
}

func TestDocsNameWhatExists(t *testing.T) {
	files := []string{"../../README.md"}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v (found %d)", err, len(docs))
	}
	files = append(files, docs...)
	c := newDocChecker()
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.check(filepath.Base(f), string(text)) {
			t.Errorf("%s: %s", strings.TrimPrefix(f, "../../"), p)
		}
	}
	if c.commands == 0 || c.flags == 0 || c.keysChecked == 0 {
		t.Errorf("checked %d commands, %d flags, %d keys: the parser no longer finds them", c.commands, c.flags, c.keysChecked)
	}
	t.Logf("checked %d commands, %d flags and %d JSON keys in %d files", c.commands, c.flags, c.keysChecked, len(files))
}

// TestDocsCheckerFails: the check can fail, on each kind of thing it checks.
func TestDocsCheckerFails(t *testing.T) {
	doc := strings.Join([]string{
		"```",
		"$ sudo throttlebench run --cpu 0.5 --batch 5 \\",
		"      --iterationz 3",
		"$ throttlebench frobnicate --cpus 1",
		"```",
		"Or `throttlebench sweep --cpus 0.5 --plott x.svg`, and `--no-such-flag`.",
		"",
		"| flag | default | meaning |",
		"|---|---|---|",
		"| `--rate R` | 100 | not a flag of run |",
		"",
		"| key | meaning |",
		"|---|---|",
		"| `stats.mean_ms`, `p50_ms`, `p51_ms` | two real, one not |",
		"| `throttling.nr_periods_total` | not a key |",
	}, "\n")
	got := newDocChecker().check("run.md", doc)
	want := []string{"--cpu", "--iterationz", "frobnicate", "--plott", "--no-such-flag", "--rate", "stats.p51_ms", "throttling.nr_periods_total"}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, w) }) {
			t.Errorf("no problem reported for %s; got %q", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d: %q", len(got), len(want), got)
	}
}

type docChecker struct {
	root *cobra.Command
	all  map[string]bool // every command's flags
	keys map[string]bool // every JSON key path: "stats.p50_ms"
	// what was checked, so that a parser that finds nothing fails
	commands, flags, keysChecked int
}

func newDocChecker() *docChecker {
	started := false
	c := &docChecker{root: newRootCmd(io.Discard, io.Discard, &started), all: map[string]bool{}, keys: map[string]bool{}}
	c.all["--help"] = true // cobra adds it to each command when it runs
	for _, sub := range c.root.Commands() {
		sub.Flags().VisitAll(func(f *pflag.Flag) { c.all["--"+f.Name] = true })
	}
	for _, v := range []any{report.Report{}, report.Latency{}, usage.File{}, model.Cell{}, inspect.Report{}, sizing.Result{}} {
		schemaPaths(reflect.TypeOf(v), "", c.keys, 0)
	}
	c.keys["config.workload"] = true
	for _, s := range decl.Specs() {
		for _, p := range s.Params {
			c.keys["config."+p.Key()] = true
		}
	}
	return c
}

// schemaPaths adds every key path of t's JSON encoding under prefix.
func schemaPaths(t reflect.Type, prefix string, out map[string]bool, depth int) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || depth > 8 {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			schemaPaths(f.Type, prefix, out, depth+1) // inlined, as encoding/json does
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[prefix+name] = true
		schemaPaths(f.Type, prefix+name+".", out, depth+1)
	}
}

var (
	codeSpan   = regexp.MustCompile("`([^`]+)`")
	invocation = regexp.MustCompile(`(?:^|[\s/(])throttlebench\s+([a-z][a-z0-9-]*)(.*)$`)
	flagRE     = regexp.MustCompile(`(?:^|[\s(/,=\[])(--[a-z][a-z0-9-]*)`)
	shellStop  = regexp.MustCompile(`\s(?:\||;|&&|\|\||>|<|#)|\$\(`)
)

func (c *docChecker) command(name string) *cobra.Command {
	for _, sub := range c.root.Commands() {
		if sub.Name() == name || slices.Contains(sub.Aliases, name) {
			return sub
		}
	}
	return nil
}

func hasFlag(cmd *cobra.Command, flag string) bool {
	name := strings.TrimPrefix(flag, "--")
	if name == "help" {
		return true
	}
	return cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil
}

// invocationProblems checks "throttlebench NAME ARGS" (the text after the
// program's name): the command exists and takes each --flag in ARGS.
func (c *docChecker) invocationProblems(name, args string) []string {
	if name == "help" || name == "completion" {
		return nil
	}
	c.commands++
	cmd := c.command(name)
	if cmd == nil {
		return []string{fmt.Sprintf("throttlebench %s: no such command", name)}
	}
	if loc := shellStop.FindStringIndex(args); loc != nil {
		args = args[:loc[0]]
	}
	var out []string
	for _, m := range flagRE.FindAllStringSubmatch(args, -1) {
		c.flags++
		if !hasFlag(cmd, m[1]) {
			out = append(out, fmt.Sprintf("throttlebench %s %s: %s has no flag %s", name, strings.TrimSpace(args), name, m[1]))
		}
	}
	return out
}

func (c *docChecker) check(page, text string) []string {
	var out []string
	lines := strings.Split(text, "\n")
	inFence := false
	table := "" // "flag" or "key" while in such a table
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
				i++
				line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(lines[i])
			}
			if m := invocation.FindStringSubmatch(line); m != nil {
				out = append(out, c.invocationProblems(m[1], m[2])...)
			}
			continue
		}
		if strings.HasPrefix(line, "|") {
			cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
			first := strings.TrimSpace(cells[0])
			switch {
			case first == "flag" || first == "key":
				table = first
				continue
			case strings.HasPrefix(first, "---"):
				continue
			}
			if table == "key" {
				out = append(out, c.keyProblems(first)...)
				cells = cells[1:]
			}
			if table == "flag" {
				out = append(out, c.flagCellProblems(page, first)...)
				cells = cells[1:]
			}
			line = strings.Join(cells, "|")
		} else {
			table = ""
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			out = append(out, c.spanProblems(m[1])...)
		}
	}
	return out
}

// flagCellProblems: a flag table's first cell names the page's command's
// flags.
func (c *docChecker) flagCellProblems(page, cell string) []string {
	cmds := pageCommands[page]
	var out []string
	for _, span := range codeSpan.FindAllStringSubmatch(cell, -1) {
		for _, m := range flagRE.FindAllStringSubmatch(span[1], -1) {
			c.flags++
			ok := len(cmds) == 0 && c.all[m[1]]
			for _, name := range cmds {
				if cmd := c.command(name); cmd != nil && hasFlag(cmd, m[1]) {
					ok = true
				}
			}
			if !ok {
				out = append(out, fmt.Sprintf("flag table: %s is not a flag of %s", m[1], strings.Join(cmds, " or ")))
			}
		}
	}
	return out
}

// spanProblems checks a code span: an invocation ("throttlebench sweep
// --plot x.svg", "latency --burst 100ms") or a flag alone ("--cpus F").
func (c *docChecker) spanProblems(span string) []string {
	if m := invocation.FindStringSubmatch(span); m != nil {
		return c.invocationProblems(m[1], m[2])
	}
	if word, args, ok := strings.Cut(span, " "); ok && c.command(word) != nil && strings.HasPrefix(args, "-") {
		return c.invocationProblems(word, " "+args)
	}
	var out []string
	for _, m := range flagRE.FindAllStringSubmatch(span, -1) {
		if slices.Contains(foreignFlags, m[1]) {
			continue
		}
		c.flags++
		if !c.all[m[1]] {
			out = append(out, fmt.Sprintf("`%s`: no command has a flag %s", span, m[1]))
		}
	}
	return out
}

// keyProblems checks a key table's first cell: "`stats.n`, `mean_ms`,
// `p99_ms` (R-7)" names stats.n, stats.mean_ms and stats.p99_ms; a key
// after "…." is a key at some depth.
func (c *docChecker) keyProblems(cell string) []string {
	var out []string
	prefix := ""
	for i, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		key := strings.ReplaceAll(strings.TrimSpace(m[1]), "[]", "")
		key = strings.TrimLeft(key, "….")
		if i == 0 {
			if dot := strings.LastIndex(key, "."); dot >= 0 {
				prefix = key[:dot+1]
			} else if strings.HasSuffix(m[1], "[]") {
				prefix = key + "."
			}
		} else if !strings.Contains(key, ".") {
			key = prefix + key
		}
		c.keysChecked++
		if !c.hasKey(key) {
			out = append(out, fmt.Sprintf("key table: %s is no key of a JSON result", key))
		}
	}
	return out
}

// hasKey: key is a whole path, or the end of one (tables document the keys
// of an object they name in their text).
func (c *docChecker) hasKey(key string) bool {
	if c.keys[key] {
		return true
	}
	for k := range c.keys {
		if strings.HasSuffix(k, "."+key) {
			return true
		}
	}
	return false
}

// TestDocsLinks: every relative link of README.md and docs/*.md reaches a
// file, and a heading there when it names one (GitHub's anchors: lower
// case, punctuation dropped, spaces to hyphens).
func TestDocsLinks(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	anchors := map[string]map[string]bool{}
	texts := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
		anchors[filepath.Clean(f)] = headingAnchors(string(b))
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	n := 0
	for f, text := range texts {
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			u := m[1]
			if strings.Contains(u, "://") {
				continue
			}
			n++
			path, anchor, _ := strings.Cut(u, "#")
			target := filepath.Clean(f)
			if path != "" {
				target = filepath.Clean(filepath.Join(filepath.Dir(f), path))
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %s: %v", strings.TrimPrefix(f, "../../"), u, err)
				continue
			}
			if a, ok := anchors[target]; anchor != "" && ok && !a[anchor] {
				t.Errorf("%s: link %s: no such heading in %s", strings.TrimPrefix(f, "../../"), u, filepath.Base(target))
			}
		}
	}
	if n == 0 {
		t.Error("no links found: the parser no longer finds them")
	}
}

var notInAnchor = regexp.MustCompile(`[^\p{L}\p{N}_ -]`)

func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		out[strings.ReplaceAll(notInAnchor.ReplaceAllString(h, ""), " ", "-")] = true
	}
	return out
}
