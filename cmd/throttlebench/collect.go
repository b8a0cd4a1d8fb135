package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/collect"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/report"
)

// maxLog bounds one log read whole: a pod's result is about 5 KB.
const maxLog = 1 << 30

type collectOptions struct {
	output string
	nodes  []string
}

func newCmdCollect(stdout, stderr io.Writer) *cobra.Command {
	o := &collectOptions{}
	cmd := &cobra.Command{
		Use:   "collect [FILE|DIR|-]...",
		Short: "Recover the results of a sweep run on a cluster from its pods' logs or a Sonobuoy archive, into one results file",
		Long: `collect reads what kubectl logs prints for the pods of sweep --emit kubernetes
(one pod or many, with or without --prefix and --timestamps; stderr lines
mixed in are left out), or the tarball sonobuoy retrieve brings back from
sweep --emit sonobuoy (plugins/<plugin>/results/<node>/), recovers every
result with the node it ran on, and writes them as one JSON array: the file
sweep --from, --plot and compare read.

An argument is a log file, a results archive (.tar.gz), a directory (an
extracted Sonobuoy archive, or a directory of log files), or - for stdin,
the default. A pod whose log holds no result (it failed, its log was cut
short, or is empty) is listed on stderr with the reason, and the exit
status is 1: the file still holds what was recovered. Exit 0: every pod
gave its result; 1: some did not, or none did (nothing written then); 2:
bad usage or an unreadable input.`,
		Example: `  kubectl logs -l throttlebench/sweep=20250101-120000 --prefix --tail=-1 --ignore-errors | throttlebench collect - -o results.json
  throttlebench collect 202501011200_sonobuoy_*.tar.gz -o results.json
  throttlebench collect --node node-a logs.txt -o node-a.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"-"}
			}
			return runCollect(o, args, cmd.InOrStdin(), stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	f.StringSliceVar(&o.nodes, "node", nil, "keep only the results of these nodes (comma-separated or repeated), to compare one node with another")
	return cmd
}

func runCollect(o *collectOptions, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := checkOutput("output", o.output); err != nil {
		return err
	}
	for _, n := range o.nodes {
		if why := kube.NodeName(n); why != "" {
			return usagef("invalid --node %q: %s", n, why)
		}
	}
	if n := countStdin(args); n > 1 {
		return usagef("invalid arguments: - (stdin) given %d times; stdin can be read once", n)
	}
	// Every input is checked before any is read.
	for _, a := range args {
		if a == "-" {
			continue
		}
		if _, err := os.Stat(a); err != nil {
			return usagef("invalid input %q: %v; want a log file, a results archive, a directory, or - for stdin", a, pathErr(err))
		}
	}
	var c collect.Collection
	for _, a := range args {
		if err := collectInput(&c, a, stdin); err != nil {
			return err
		}
	}

	var keep []string // nil: every node
	if len(o.nodes) > 0 {
		keep = o.nodes
	}
	for _, m := range c.Missing {
		if keep != nil && m.Node != "" && !slices.Contains(keep, m.Node) {
			continue // on a node --node leaves out
		}
		fmt.Fprintf(stderr, "throttlebench: collect: no result from %s: %s\n", m.Source, m.Reason)
	}
	reps := c.Reports()
	var unnamed []string
	for _, f := range c.Found {
		if f.Report.Host.Node == "" {
			unnamed = append(unnamed, f.Source)
		}
	}
	if len(unnamed) > 0 {
		fmt.Fprintf(stderr, "throttlebench: collect: warning: %d result(s) name no node (%s unset in the pod: not a pod of sweep --emit?): %s\n",
			len(unnamed), report.NodeEnv, strings.Join(unnamed, ", "))
	}
	kept := reps
	if len(o.nodes) > 0 {
		kept = nil
		for _, r := range reps {
			if slices.Contains(o.nodes, r.Host.Node) {
				kept = append(kept, r)
			}
		}
	}
	fmt.Fprintf(stderr, "throttlebench: collect: %s\n", collectSummary(&c, reps, kept, o.nodes))
	if len(kept) == 0 {
		what := "no result recovered"
		if len(reps) > 0 {
			what = fmt.Sprintf("none of the %d results recovered is from --node %s", len(reps), strings.Join(o.nodes, ","))
		}
		return fmt.Errorf("%s from %s; nothing written", what, strings.Join(args, " "))
	}
	if err := writeOutput(o.output, stdout, func(w io.Writer) error { return report.WriteJSON(w, kept) }); err != nil {
		return err
	}
	if n := c.MissingSources(keep); n > 0 {
		return fmt.Errorf("%d of %d pods or files left no result or a broken one (listed above); the %d results recovered are written", n, c.Sources, len(kept))
	}
	return nil
}

// collectSummary says how much came back: "6 results from 6 pods or files,
// nodes node-a (3), node-b (3); 0 without a result".
func collectSummary(c *collect.Collection, reps, kept []report.Report, only []string) string {
	count := map[string]int{}
	var names []string
	for _, r := range reps {
		n := r.Host.Node
		if n == "" {
			n = "(none)"
		}
		if count[n] == 0 {
			names = append(names, n)
		}
		count[n]++
	}
	var nodes []string
	for _, n := range names {
		nodes = append(nodes, fmt.Sprintf("%s (%d)", n, count[n]))
	}
	s := fmt.Sprintf("%d results from %d pods or files", len(reps), c.Sources)
	if len(nodes) > 0 {
		s += ", nodes " + strings.Join(nodes, ", ")
	}
	s += fmt.Sprintf("; %d without a result", c.MissingSources(nil))
	if c.Duplicates > 0 {
		s += fmt.Sprintf("; %d duplicates left out", c.Duplicates)
	}
	if len(only) > 0 {
		s += fmt.Sprintf("; kept %d of them (--node %s)", len(kept), strings.Join(only, ","))
		if other := c.MissingSources(nil) - c.MissingSources(only); other > 0 {
			s += fmt.Sprintf(", leaving out %d without a result from other nodes", other)
		}
	}
	return s
}

func countStdin(args []string) int {
	n := 0
	for _, a := range args {
		if a == "-" {
			n++
		}
	}
	return n
}

func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// collectInput reads one argument: stdin, a file (a log, or an archive by
// its gzip or tar header), or a directory.
func collectInput(c *collect.Collection, arg string, stdin io.Reader) error {
	if arg == "-" {
		return collectReader(c, "stdin", stdin)
	}
	fi, err := os.Stat(arg)
	if err != nil {
		return usagef("invalid input %q: %v", arg, pathErr(err))
	}
	if !fi.IsDir() {
		f, err := os.Open(arg)
		if err != nil {
			return usagef("invalid input %q: %v", arg, pathErr(err))
		}
		defer f.Close()
		return collectReader(c, arg, f)
	}
	return collectDir(c, arg)
}

// collectReader tells an archive from a log by its first bytes.
func collectReader(c *collect.Collection, name string, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1024)
	head, _ := br.Peek(512)
	if collect.IsGzip(head) || isTar(head) {
		if err := c.Archive(name, br); err != nil {
			return usagef("invalid input %q: %v", name, err)
		}
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(br, maxLog+1))
	if err != nil {
		return usagef("invalid input %q: %v", name, err)
	}
	if len(data) > maxLog {
		return usagef("invalid input %q: larger than %d MiB; a pod's result is a few KB", name, maxLog>>20)
	}
	c.Log(name, data)
	return nil
}

// isTar says whether a block is a tar header (the ustar magic).
func isTar(head []byte) bool {
	return len(head) >= 262 && string(head[257:262]) == "ustar"
}

// collectDir reads an extracted Sonobuoy archive (it has plugins/), or
// else every regular file below dir as a log, in the order of their paths.
func collectDir(c *collect.Collection, dir string) error {
	sonobuoy := false
	if fi, err := os.Stat(filepath.Join(dir, "plugins")); err == nil && fi.IsDir() {
		sonobuoy = true
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return usagef("invalid input %q: %v", dir, pathErr(err))
	}
	read := 0
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		if sonobuoy {
			if _, _, ok := collect.SonobuoyNode(filepath.ToSlash(rel)); !ok {
				continue
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return usagef("invalid input %q: %v", p, pathErr(err))
		}
		if sonobuoy {
			c.SonobuoyFile(filepath.ToSlash(rel), data)
		} else {
			c.Log(p, data)
		}
		read++
	}
	if read == 0 {
		return usagef("invalid input %q: no log files in it (and no plugins/<plugin>/results/<node>/ of a Sonobuoy archive)", dir)
	}
	return nil
}
