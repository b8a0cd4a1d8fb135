package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/config"
)

// Kind says how the values of an axis are parsed and stepped: the kind its
// parameter declares (config.Params).
type Kind = config.Kind

const (
	Float    = config.Float    // --cpus
	Duration = config.Duration // --quota, --period, --burst
	Int      = config.Int      // --workers, --cost
	Words    = config.Words    // --gomaxprocs: integers, or the words its parameter declares
)

// Expand turns a spec into the list of values it names. A spec is a comma
// separated list whose items are single values or ranges:
//
//	start:stop:step   start, start+step, … up to and including stop
//	start:stop:*k     start, start×k, start×k², … up to and including stop
//
// e.g. "0.1,0.25,0.5,1", "0.1:1:0.1", "1ms:100ms:*2", "1:4:1,8,16".
// Values come back formatted as the flags take them; their own validity
// (a period within 1ms–1s, say) is checked where they are used. words are
// the literals a parameter takes besides numbers (gomaxprocs' workers and
// runtime, quota's max): single items only, never the ends of a range; a
// word ending in ':' stands for every item it begins (pool: for pool:4).
func Expand(spec string, kind Kind, words ...string) ([]string, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, errors.New("empty list")
	}
	var out []string
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, errors.New("empty item in the list")
		}
		parts := strings.Split(item, ":")
		switch {
		case slices.Contains(words, item) || prefixWord(words, item):
			out = append(out, item)
		case len(parts) == 1:
			v, err := parse(item, kind)
			if err != nil && len(words) > 0 && (kind == Float || kind == Duration) {
				// --cpus MAX said only "not a number", max unnamed (issue 33).
				err = fmt.Errorf("%w, nor %s", err, strings.Join(words, " or "))
			}
			if err != nil {
				return nil, err
			}
			out = append(out, canonical(item, v, kind))
		case len(parts) == 3 && slices.ContainsFunc(parts, func(p string) bool { return slices.Contains(words, strings.TrimSpace(p)) }):
			return nil, fmt.Errorf("range %q: only numbers can form a range", item)
		case len(parts) == 3:
			vs, err := expandRange(parts[0], parts[1], parts[2], kind)
			if err != nil {
				return nil, fmt.Errorf("range %q: %w", item, err)
			}
			out = append(out, vs...)
		default:
			return nil, fmt.Errorf("%q is neither a value nor a range start:stop:step", item)
		}
		if len(out) > config.MaxValues {
			return nil, fmt.Errorf("more than %d values", config.MaxValues)
		}
	}
	return out, nil
}

// prefixWord says whether item begins with one of words that ends in ':'
// (--instances' pool:N): a literal of its own, whose part after the
// colon its parameter checks.
func prefixWord(words []string, item string) bool {
	return slices.ContainsFunc(words, func(w string) bool {
		return strings.HasSuffix(w, ":") && strings.HasPrefix(item, w)
	})
}

// parse reads one value as a float64 (durations in nanoseconds).
func parse(s string, kind Kind) (float64, error) {
	switch kind {
	case Duration:
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration such as 10ms", s)
		}
		return float64(d), nil
	case Int, Words:
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", s)
		}
		return float64(n), nil
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return f, nil
	}
}

// canonical formats a single value v, parsed from s, as the flags take it.
// Whole numbers and durations are formatted from their own parse, not from
// the float64 a range steps in, which holds them exactly only up to 2^53; a
// number is kept as typed, not rounded as a range's values are.
func canonical(s string, v float64, kind Kind) string {
	switch kind {
	case Duration:
		d, _ := time.ParseDuration(s)
		return d.String()
	case Int, Words:
		n, _ := strconv.Atoi(s)
		return strconv.Itoa(n)
	default:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
}

// format formats one value of a range.
func format(v float64, kind Kind) string {
	switch kind {
	case Duration:
		return time.Duration(math.Round(v)).String()
	case Int, Words:
		return strconv.Itoa(int(v))
	default:
		// Rounded so that 0.1+0.2 reads 0.3, as the user meant.
		return strconv.FormatFloat(roundTo(v, 9), 'f', -1, 64)
	}
}

func roundTo(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	if r := math.Round(v*p) / p; !math.IsInf(r, 0) {
		return r
	}
	return v // beyond 1e299 v*p overflows, and there are no decimals left to round
}

// maxExact is the largest whole number up to which every whole number is a
// float64: a range of whole numbers or durations ends within it.
const maxExact = 1 << 53

func expandRange(startS, stopS, stepS string, kind Kind) ([]string, error) {
	start, err := parse(startS, kind)
	if err != nil {
		return nil, err
	}
	stop, err := parse(stopS, kind)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(start) || math.IsNaN(stop) {
		return nil, errors.New("only numbers can form a range")
	}
	if kind != Float && (math.Abs(start) > maxExact || math.Abs(stop) > maxExact) {
		return nil, fmt.Errorf("its ends must lie within ±%s, where it can be stepped exactly", format(maxExact, kind))
	}
	if stop < start {
		return nil, fmt.Errorf("stop %s is below start %s", stopS, startS)
	}
	var out []string
	// A tolerance of a millionth of the span keeps 0.1:1:0.1 from losing its
	// last value to rounding.
	eps := (stop - start) * 1e-9
	if mul, ok := strings.CutPrefix(stepS, "*"); ok {
		k, err := strconv.ParseFloat(mul, 64)
		if err != nil || !(k > 1) || math.IsInf(k, 0) {
			return nil, fmt.Errorf("factor %q must be a number above 1", stepS)
		}
		if !(start > 0) {
			return nil, errors.New("a multiplying range must start above 0")
		}
		for v := start; v <= stop+eps; v *= k {
			out = append(out, format(v, kind))
			if len(out) > config.MaxValues {
				return nil, fmt.Errorf("more than %d values", config.MaxValues)
			}
		}
		return dedupe(out), nil
	}
	step, err := parse(strings.TrimPrefix(stepS, "+"), kind)
	if err != nil || !(step > 0) {
		return nil, fmt.Errorf("step %q must be above 0", stepS)
	}
	if (stop-start)/step > config.MaxValues {
		return nil, fmt.Errorf("more than %d values", config.MaxValues)
	}
	// Bounded by the count too: a step below the float spacing at start
	// (1e300:1e300:1) never moves v, and dedupe folds its repeats into one.
	for i := 0; i <= config.MaxValues; i++ {
		v := start + float64(i)*step
		if v > stop+eps {
			break
		}
		out = append(out, format(v, kind))
	}
	return dedupe(out), nil
}

// dedupe drops repeats that rounding to whole numbers can make (1:10:*1.5).
func dedupe(vs []string) []string {
	var out []string
	for i, v := range vs {
		if i == 0 || v != vs[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Axis is one swept parameter: the flag it came from and its values.
type Axis struct {
	Flag   string
	Values []string
}

// Config is one point of a sweep: a value for every axis, in axis order.
type Config []Param

// Param is one flag's value in a configuration.
type Param struct {
	Flag, Value string
}

// Get returns the value of flag in c, or "".
func (c Config) Get(flag string) string {
	for _, p := range c {
		if p.Flag == flag {
			return p.Value
		}
	}
	return ""
}

// Flags are c's flags, in axis order: the swept columns of a table.
func (c Config) Flags() []string {
	out := make([]string, len(c))
	for i, p := range c {
		out[i] = p.Flag
	}
	return out
}

// Values are c's values, in axis order.
func (c Config) Values() []string {
	out := make([]string, len(c))
	for i, p := range c {
		out[i] = p.Value
	}
	return out
}

// Size is the number of configurations in the product of the axes, computed
// before any is made; ok is false when it does not even fit an int (seven
// axes of a thousand values each).
func Size(axes []Axis) (n int, ok bool) {
	n = 1
	for _, a := range axes {
		if len(a.Values) == 0 {
			return 0, true
		}
		if n > math.MaxInt/len(a.Values) {
			return math.MaxInt, false
		}
		n *= len(a.Values)
	}
	return n, true
}

// At returns configuration i (0 ≤ i < Size) of the product in Product's
// order, without making the others.
func At(axes []Axis, i int) Config {
	c := make(Config, len(axes))
	for k := len(axes) - 1; k >= 0; k-- {
		vs := axes[k].Values
		c[k] = Param{axes[k].Flag, vs[i%len(vs)]}
		i /= len(vs)
	}
	return c
}

// Product returns every combination of the axes' values, the last axis
// varying fastest.
func Product(axes []Axis) []Config {
	out := []Config{{}}
	for _, a := range axes {
		var next []Config
		for _, c := range out {
			for _, v := range a.Values {
				nc := append(append(Config{}, c...), Param{a.Flag, v})
				next = append(next, nc)
			}
		}
		out = next
	}
	return out
}
