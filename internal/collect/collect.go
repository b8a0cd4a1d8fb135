package collect

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/report"
)

// Found is one result recovered and where it came from.
type Found struct {
	Source string // pod/NAME/CONTAINER, a file, a path in an archive
	Line   int    // where its JSON starts in the source's input, from 1
	Report report.Report
}

// Missing is a source that gave no result, and why.
type Missing struct {
	Source string
	Reason string
	// Node is the node the source ran on where it is known: a Sonobuoy
	// node directory, or a result the same pod's log did hold; "" when
	// nothing says (a pod whose log holds no result names no node).
	Node string
}

// Collection is what has been recovered so far.
type Collection struct {
	Found   []Found
	Missing []Missing
	// Sources counts the pods, files and archive members read that could
	// hold a result.
	Sources int
	// Duplicates counts results seen twice (the same log given twice) and
	// kept once.
	Duplicates int
	seen       map[[32]byte]bool
}

// prefixRE is kubectl logs --prefix: "[pod/NAME/CONTAINER] ".
var prefixRE = regexp.MustCompile(`^\[((?:pod|pods)/[^\]\s]+)\] `)

// timestampRE is kubectl logs --timestamps: an RFC 3339 time and a space.
var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) `)

// kubectlErrorRE is the line kubectl logs --ignore-errors prints, on
// stdout and without a prefix, for a pod whose log it could not read (one
// still Pending or ContainerCreating, one whose node is gone), such as
// error: container "throttlebench" in pod "tb-x-c0-abcde" is waiting to start: ContainerCreating
var kubectlErrorRE = regexp.MustCompile(`^error: .*\bpods? "([a-z0-9][-a-z0-9.]*)"`)

// kubectlContainerRE finds the container in such a line.
var kubectlContainerRE = regexp.MustCompile(`\bcontainer "([a-z0-9][-a-z0-9]*)" in pod "`)

// stream is the lines of one source: a pod (by its prefix), or a whole
// input without prefixes.
type stream struct {
	name  string
	lines []string
	at    []int // each line's number in the input
}

// Log reads what kubectl logs printed, for one pod or many: lines with
// kubectl's "[pod/NAME/CONTAINER] " prefix are sorted by pod, lines without
// one belong to name (a file, or stdin).
func (c *Collection) Log(name string, data []byte) {
	var streams []*stream
	byName := map[string]*stream{}
	get := func(n string) *stream {
		s, ok := byName[n]
		if !ok {
			s = &stream{name: n}
			byName[n] = s
			streams = append(streams, s)
		}
		return s
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		get(name) // an empty input is a source without a result
	}
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		src := name
		if m := prefixRE.FindStringSubmatch(line); m != nil {
			src, line = m[1], line[len(m[0]):]
		}
		line = timestampRE.ReplaceAllString(line, "")
		// A prefix after the timestamp, as some kubectl versions order them.
		if m := prefixRE.FindStringSubmatch(line); m != nil && src == name {
			src, line = m[1], line[len(m[0]):]
		}
		if src == name {
			if m := kubectlErrorRE.FindStringSubmatch(line); m != nil {
				// A pod kubectl could not read: listed as a source
				// without a result, under the name its prefix would have.
				pod := "pod/" + m[1]
				if cm := kubectlContainerRE.FindStringSubmatch(line); cm != nil {
					pod += "/" + cm[1]
				}
				c.Sources++
				c.Missing = append(c.Missing, Missing{Source: pod, Reason: "kubectl could not read its log: " + quote(strings.TrimPrefix(line, "error: "))})
				continue
			}
		}
		s := get(src)
		s.lines = append(s.lines, line)
		s.at = append(s.at, i+1)
	}
	for _, s := range streams {
		c.stream(s, "")
	}
}

// stream recovers the results of one source. node, when known from where
// the source came from (a Sonobuoy node directory), fills a result that
// names none.
func (c *Collection) stream(s *stream, node string) {
	c.Sources++
	missing, found := len(c.Missing), len(c.Found)
	defer func() {
		// The node of what is missing from this source: where it came
		// from, or the one node of the results it did hold.
		n := node
		for _, f := range c.Found[found:] {
			switch {
			case n == "":
				n = f.Report.Host.Node
			case n != f.Report.Host.Node && node == "":
				n = ""
			}
		}
		for i := missing; i < len(c.Missing); i++ {
			c.Missing[i].Node = n
		}
	}()
	results := 0
	said := false   // a reason is recorded for this source already
	var last string // the last line outside a result: often the error
	nonEmpty := 0
	for _, l := range s.lines {
		if strings.TrimSpace(l) != "" {
			nonEmpty++
		}
	}
	for i := 0; i < len(s.lines); i++ {
		line := strings.TrimRight(s.lines[i], " \t")
		var close string
		switch {
		case line == "{":
			close = "}"
		case line == "[":
			close = "]"
		case strings.HasPrefix(line, "{") && strings.HasSuffix(line, "}"):
			// One result on one line (compact JSON).
			if c.decode(s.name, s.at[i], []byte(line), node) {
				results++
			} else {
				said = true
			}
			continue
		default:
			if line != "" {
				last = line
			}
			continue
		}
		// The indented JSON throttlebench writes: inner lines indented,
		// the closing bracket alone at the start of a line. Lines in
		// between that are neither (stderr interleaved by the container
		// runtime) are left out. A new value opening at the start of a
		// line before the closing one means this one was cut short (a
		// truncated log, then another pod's or run's output without a
		// prefix): it is reported so and the scan resumes at the new one.
		block := []string{line}
		end, next := -1, -1
		for j := i + 1; j < len(s.lines); j++ {
			l := s.lines[j]
			t := strings.TrimRight(l, " \t")
			if t == close {
				block = append(block, l)
				end = j
				break
			}
			if t == "{" || t == "[" || strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
				next = j
				break
			}
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || l == "" {
				block = append(block, l)
			}
		}
		if next >= 0 {
			c.Missing = append(c.Missing, Missing{Source: s.name, Reason: fmt.Sprintf("truncated: a result starts at line %d and breaks off %d lines later, where another begins (line %d)", s.at[i], next-i, s.at[next])})
			said = true
			i = next - 1
			continue
		}
		if end < 0 {
			c.Missing = append(c.Missing, Missing{Source: s.name, Reason: fmt.Sprintf("truncated: a result starts at line %d and the log ends %d lines later, inside it", s.at[i], len(s.lines)-1-i)})
			said = true
			break
		}
		if c.decodeBlock(s.name, s.at[i], block, node) {
			results++
		} else {
			said = true
		}
		i = end
	}
	switch {
	case results > 0 || said:
	case nonEmpty == 0:
		c.Missing = append(c.Missing, Missing{Source: s.name, Reason: "empty log: the pod printed nothing (it never started, or its log is gone)"})
	default:
		c.Missing = append(c.Missing, Missing{Source: s.name, Reason: "no result in the log; its last line: " + quote(last)})
	}
}

// jsonLineRE is what a line of indented JSON starts with, after its
// indentation: a key or a string, a bracket, or a scalar element of an
// array on a line of its own.
var jsonLineRE = regexp.MustCompile(`^[ \t]*(["{}\[\]]|(-?[0-9][0-9.eE+-]*|true|false|null),?$)`)

// decodeBlock decodes an indented block; when that fails, it tries again
// with only the lines that look like JSON, leaving out an indented stderr
// line (a stack trace's, a runtime's) that landed inside the result.
func (c *Collection) decodeBlock(source string, line int, block []string, node string) bool {
	data := []byte(strings.Join(block, "\n"))
	if _, err := report.Load(bytes.NewReader(data)); err != nil {
		var kept []string
		for _, l := range block {
			if jsonLineRE.MatchString(l) {
				kept = append(kept, l)
			}
		}
		if len(kept) < len(block) {
			if _, err := report.Load(bytes.NewReader([]byte(strings.Join(kept, "\n")))); err == nil {
				data = []byte(strings.Join(kept, "\n"))
			}
		}
	}
	return c.decode(source, line, data, node)
}

// decode reads one JSON value holding a result (or an array of them) and
// records what it found; false when it holds none, the reason recorded.
func (c *Collection) decode(source string, line int, data []byte, node string) bool {
	reps, err := report.Load(bytes.NewReader(data))
	if err != nil {
		// An error result, {"error": "..."}: Sonobuoy's for a node whose
		// pod failed, run --sonobuoy-results's for a run that failed.
		var failed struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &failed) == nil && failed.Error != "" {
			c.Missing = append(c.Missing, Missing{Source: source, Reason: "an error result: " + quote(failed.Error)})
			return false
		}
		msg := strings.TrimPrefix(err.Error(), report.ErrInput.Error()+": ")
		c.Missing = append(c.Missing, Missing{Source: source, Reason: fmt.Sprintf("the JSON at line %d is no result: %s", line, quote(msg))})
		return false
	}
	if c.seen == nil {
		c.seen = map[[32]byte]bool{}
	}
	for _, r := range reps {
		// host.node is what the input says: only a node's name is kept.
		r.Host.Node = report.NodeName(r.Host.Node)
		b, _ := json.Marshal(r)
		sum := sha256.Sum256(b)
		if c.seen[sum] {
			c.Duplicates++
			continue
		}
		c.seen[sum] = true
		if r.Host.Node == "" {
			r.Host.Node = node
		}
		c.Found = append(c.Found, Found{Source: source, Line: line, Report: r})
	}
	return true
}

// MissingSources counts the sources with something missing (a source can
// have more than one reason: a result cut short, then another that is no
// result), leaving out those known to have run on a node keep does not
// hold; keep nil keeps every node.
func (c *Collection) MissingSources(keep []string) int {
	seen := map[string]bool{}
	for _, m := range c.Missing {
		if keep != nil && m.Node != "" && !slices.Contains(keep, m.Node) {
			continue
		}
		seen[m.Source] = true
	}
	return len(seen)
}

// quote keeps a log line short and on one line.
func quote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Reports are the results recovered, in a stable order: by node, then by
// configuration (the configuration keys in the order config.Params
// declares them, numbers by value), then as read.
func (c *Collection) Reports() []report.Report {
	found := slices.Clone(c.Found)
	slices.SortStableFunc(found, func(a, b Found) int {
		if n := cmp.Compare(a.Report.Host.Node, b.Report.Host.Node); n != 0 {
			return n
		}
		return compareConfigs(&a.Report, &b.Report)
	})
	out := make([]report.Report, len(found))
	for i, f := range found {
		out[i] = f.Report
	}
	return out
}

func compareConfigs(a, b *report.Report) int {
	for _, p := range config.Params {
		if p.Key == "" {
			continue
		}
		ta, va := compare.ReadKey(a, p.Key)
		tb, vb := compare.ReadKey(b, p.Key)
		fa, aNum := number(va)
		fb, bNum := number(vb)
		if aNum && bNum {
			if n := cmp.Compare(fa, fb); n != 0 {
				return n
			}
			continue
		}
		if n := cmp.Compare(ta, tb); n != 0 {
			return n
		}
	}
	return 0
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		if v < 0 { // -1: unlimited, after every limit
			return 1e300, true
		}
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}
