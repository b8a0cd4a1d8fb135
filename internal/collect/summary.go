package collect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
)

// MissingOn are the sources without a result, leaving out those known to
// have run on a node nodes does not name; no nodes keeps every one.
func (c *Collection) MissingOn(nodes []string) []Missing {
	var out []Missing
	for _, m := range c.Missing {
		if len(nodes) > 0 && m.Node != "" && !slices.Contains(nodes, m.Node) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// Unnamed are the sources of the results that name no node: not pods of
// sweep --emit, whose pods set report.NodeEnv.
func (c *Collection) Unnamed() []string {
	var out []string
	for _, f := range c.Found {
		if f.Report.Host.Node == "" {
			out = append(out, f.Source)
		}
	}
	return out
}

// OnNodes keeps the results of the nodes named; no nodes keeps them all.
func OnNodes(reps []report.Report, nodes []string) []report.Report {
	if len(nodes) == 0 {
		return reps
	}
	var kept []report.Report
	for _, r := range reps {
		if slices.Contains(nodes, r.Host.Node) {
			kept = append(kept, r)
		}
	}
	return kept
}

// Summary says how much came back: "6 results from 6 pods or files,
// nodes node-a (3), node-b (3); 0 without a result", and with nodes
// (--node) how many of them were kept.
func (c *Collection) Summary(reps, kept []report.Report, nodes []string) string {
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
	var counted []string
	for _, n := range names {
		counted = append(counted, fmt.Sprintf("%s (%d)", n, count[n]))
	}
	s := fmt.Sprintf("%d results from %d pods or files", len(reps), c.Sources)
	if len(counted) > 0 {
		s += ", nodes " + strings.Join(counted, ", ")
	}
	s += fmt.Sprintf("; %d without a result", c.MissingSources(nil))
	if c.Duplicates > 0 {
		s += fmt.Sprintf("; %d duplicates left out", c.Duplicates)
	}
	if len(nodes) > 0 {
		s += fmt.Sprintf("; kept %d of them (--node %s)", len(kept), strings.Join(nodes, ","))
		if other := c.MissingSources(nil) - c.MissingSources(nodes); other > 0 {
			s += fmt.Sprintf(", leaving out %d without a result from other nodes", other)
		}
	}
	return s
}
