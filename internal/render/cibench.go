package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/throttlebench/throttlebench/internal/table"
)

// The formats CI benchmark tools read, each written by one encoder here
// from plain structs, so that every command (run, sweep, latency, size,
// show, and compare when it writes them) speaks each the same way.
const (
	// Gobench is the Go benchmark format benchstat reads
	// (golang.org/design/14313-benchmark-format), with configuration
	// lines and unit metadata (golang/go#43744).
	Gobench = "gobench"
	// GitHubActionBenchmark is github-action-benchmark's
	// customSmallerIsBetter JSON: [{name, unit, value, range, extra}].
	GitHubActionBenchmark = "github-action-benchmark"
	// BMF is the Bencher Metric Format:
	// {benchmark: {measure: {value, lower_value, upper_value}}}.
	BMF = "bmf"
)

// CIFormats are those formats.
var CIFormats = []string{Gobench, GitHubActionBenchmark, BMF}

// Metric is one figure of one benchmark, as github-action-benchmark and
// Bencher keep it; lower is better for every one.
type Metric struct {
	// Name is the benchmark: what ran and its configuration, key=value
	// parts as in the Go benchmark name, without "Benchmark".
	Name string
	// Measure is what the figure is, its unit in its name ("p99_ms"):
	// Bencher's measure, and the suffix of github-action-benchmark's name.
	Measure string
	Unit    string
	Value   float64
	// Lower and Upper bound the figure's confidence interval (or, for
	// size, the search's bracket); nil where the result has none.
	Lower, Upper *float64
	// Extra is the configuration, "key: value" lines, for the tool's
	// tooltip (github-action-benchmark's extra; Bencher has no place).
	Extra string
}

// ghaEntry is one element of customSmallerIsBetter's array.
type ghaEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// WriteGitHubActionBenchmark writes ms as github-action-benchmark's
// customSmallerIsBetter JSON: an array, empty where ms is.
func WriteGitHubActionBenchmark(w io.Writer, ms []Metric) error {
	out := []ghaEntry{}
	for _, m := range unique(ms) {
		e := ghaEntry{Name: m.Name + " - " + m.Measure, Unit: m.Unit, Value: m.Value, Extra: m.Extra}
		if m.Lower != nil && m.Upper != nil {
			// The tool takes one half-width, "± x" (extractRangeInfo);
			// our intervals are not symmetric, so the wider side, which
			// the range then holds whole.
			e.Range = "± " + rangeText(max(m.Value-*m.Lower, *m.Upper-m.Value))
		}
		out = append(out, e)
	}
	return encode(w, out)
}

// bmfMetric is one measure's figure in BMF.
type bmfMetric struct {
	Value float64  `json:"value"`
	Lower *float64 `json:"lower_value,omitempty"`
	Upper *float64 `json:"upper_value,omitempty"`
}

// WriteBMF writes ms in the Bencher Metric Format: one object per
// benchmark, one per measure in it; {} where ms is empty.
func WriteBMF(w io.Writer, ms []Metric) error {
	out := map[string]map[string]bmfMetric{}
	for _, m := range unique(ms) {
		if out[m.Name] == nil {
			out[m.Name] = map[string]bmfMetric{}
		}
		out[m.Name][m.Measure] = bmfMetric{Value: m.Value, Lower: m.Lower, Upper: m.Upper}
	}
	return encode(w, out)
}

// WriteMetrics writes ms in format, github-action-benchmark's or BMF.
func WriteMetrics(w io.Writer, ms []Metric, format string) error {
	switch format {
	case GitHubActionBenchmark:
		return WriteGitHubActionBenchmark(w, ms)
	case BMF:
		return WriteBMF(w, ms)
	}
	return fmt.Errorf("unknown format %q", format)
}

func encode(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// unique renames the second and later metric of one name and measure
// ("name #2"): a list may run one configuration twice, and both tools key
// a figure by its name, so that one would silently replace the other.
func unique(ms []Metric) []Metric {
	seen := map[[2]string]int{}
	out := make([]Metric, 0, len(ms))
	for _, m := range ms {
		k := [2]string{m.Name, m.Measure}
		seen[k]++
		if n := seen[k]; n > 1 {
			m.Name = fmt.Sprintf("%s #%d", m.Name, n)
		}
		out = append(out, m)
	}
	return out
}

// rangeText is a half-width as github-action-benchmark reads it, to
// three significant figures rounded up (so that it still holds the
// interval): its pattern wants a digit and at least one character more,
// so 3 is written "3.0".
func rangeText(v float64) string {
	if v > 0 && !math.IsInf(v, 0) {
		scale := math.Pow(10, 2-math.Floor(math.Log10(v)))
		// Less a hair, so that float noise (0.1000000000000005) does not
		// round a whole figure up.
		v = math.Ceil(v*scale-1e-6) / scale
	}
	s := table.Sig(v, 3)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// addMetric appends m where its figures are numbers both tools take: JSON
// has no NaN or infinity.
func addMetric(ms []Metric, m Metric) []Metric {
	finite := func(p *float64) bool { return p == nil || !(math.IsNaN(*p) || math.IsInf(*p, 0)) }
	if !finite(&m.Value) || !finite(m.Lower) || !finite(m.Upper) {
		return ms
	}
	if (m.Lower == nil) != (m.Upper == nil) {
		m.Lower, m.Upper = nil, nil
	}
	return append(ms, m)
}

// ConfigLine is a configuration line of the Go benchmark format, "key:
// value": benchstat shows it above its table and groups results by it.
type ConfigLine struct{ Key, Value string }

// Extra is lines as one "key: value" string a line each, a Metric's
// Extra.
func Extra(lines []ConfigLine) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(l.Key + ": " + l.Value)
	}
	return b.String()
}

// Bench is one benchmark in the Go benchmark format: the configuration it
// ran under, its name, and one line per measurement.
type Bench struct {
	Config []ConfigLine
	// Name begins "Benchmark"; whitespace in it becomes "_", as a name is
	// one field.
	Name  string
	Lines []Line
}

// Line is one benchmark line: its iterations and its values.
type Line struct {
	N      int
	Values []Value
}

// Value is a figure in its unit, written with Prec decimals (-1: as many
// as it needs).
type Value struct {
	Value float64
	Unit  string
	Prec  int
}

// WriteBenches writes bs in the Go benchmark format: each one's
// configuration lines where they differ from those in force, a "Unit U
// better=lower" line for every unit before its first use (every figure we
// write is better lower), then its lines. A bench without lines leaves
// its configuration alone.
func WriteBenches(w io.Writer, bs []Bench) error {
	var b strings.Builder
	inForce := map[string]string{}
	units := map[string]bool{}
	for _, bench := range bs {
		for _, c := range bench.Config {
			if v, ok := inForce[c.Key]; !ok || v != c.Value {
				inForce[c.Key] = c.Value
				fmt.Fprintf(&b, "%s: %s\n", c.Key, c.Value)
			}
		}
		for _, l := range bench.Lines {
			for _, v := range l.Values {
				if !units[v.Unit] {
					units[v.Unit] = true
					fmt.Fprintf(&b, "Unit %s better=lower\n", v.Unit)
				}
			}
		}
		name := strings.Join(strings.Fields(bench.Name), "_")
		for _, l := range bench.Lines {
			fmt.Fprintf(&b, "%s\t%d", name, l.N)
			for _, v := range l.Values {
				fmt.Fprintf(&b, "\t%s %s", strconvF(v.Value, v.Prec), v.Unit)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
