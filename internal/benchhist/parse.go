package benchhist

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Bench is one benchmark's samples from one go test run.
type Bench struct {
	Pkg, Name string
	Procs     int
	Config    map[string]string
	Iters     []int
	Metrics   map[string][]float64
}

// Parse reads go test -bench output, in the Go benchmark format, with
// benchfmt, and gathers each benchmark's samples (-count N prints N lines
// per benchmark, those of sub-benchmarks interleaved) in the order the
// benchmarks first appear. Lines that are not results (PASS, ok, logs,
// --- FAIL) are skipped as the format says; a malformed result line and a
// value that JSON cannot hold (NaN, ±Inf) are warnings. name names the
// input in warnings.
func Parse(r io.Reader, name string) ([]Bench, []string, error) {
	var out []*Bench
	index := map[string]*Bench{}
	var warnings []string
	rd := benchfmt.NewReader(r, name)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			warnings = append(warnings, rec.Error())
		case *benchfmt.Result:
			pkg := rec.GetConfig("pkg")
			full, procs := splitProcs(rec.Name)
			key := pkg + "\x00" + full + "\x00" + strconv.Itoa(procs)
			b := index[key]
			if b == nil {
				b = &Bench{Pkg: pkg, Name: full, Procs: procs, Config: map[string]string{}, Metrics: map[string][]float64{}}
				index[key] = b
				out = append(out, b)
			}
			for _, c := range rec.Config {
				if c.File && c.Key != "pkg" {
					b.Config[c.Key] = string(c.Value)
				}
			}
			b.Iters = append(b.Iters, rec.Iters)
			for _, v := range rec.Values {
				unit, value := v.Unit, v.Value
				if v.OrigUnit != "" {
					// As go test printed it: ns/op, not benchfmt's
					// tidied sec/op.
					unit, value = v.OrigUnit, v.OrigValue
				}
				if math.IsNaN(value) || math.IsInf(value, 0) {
					file, line := rec.Pos()
					warnings = append(warnings, fmt.Sprintf("%s:%d: %s %s is %v: left out", file, line, full, unit, value))
					continue
				}
				b.Metrics[unit] = append(b.Metrics[unit], value)
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, warnings, fmt.Errorf("read %s: %w", name, err)
	}
	benches := make([]Bench, len(out))
	for i, b := range out {
		if len(b.Config) == 0 {
			b.Config = nil
		}
		benches[i] = *b
	}
	return benches, warnings, nil
}

// splitProcs is the name without its GOMAXPROCS suffix ("-2"), and that
// number: 1 when the name has none, as go test prints none at 1.
func splitProcs(n benchfmt.Name) (string, int) {
	base, parts := n.Parts()
	procs := 0
	if len(parts) > 0 {
		last := parts[len(parts)-1]
		if p, ok := strings.CutPrefix(string(last), "-"); ok {
			if v, err := strconv.Atoi(p); err == nil {
				procs = v
				parts = parts[:len(parts)-1]
			}
		}
	}
	// benchfmt drops the "Benchmark" prefix; the history keeps go test's
	// names, which are what -bench and the sources say.
	var b strings.Builder
	b.WriteString("Benchmark")
	b.Write(base)
	for _, p := range parts {
		b.Write(p)
	}
	if procs == 0 {
		procs = 1
	}
	return b.String(), procs
}
