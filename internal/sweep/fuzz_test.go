package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/throttlebench/throttlebench/internal/config"
)

// expandWithin runs Expand with a deadline: a range whose values stop
// advancing (a step below the float spacing at start) must not loop, and
// one with too many values must not allocate without bound. Two seconds are
// thousands of times what any expansion takes, even on a busy machine. It
// panics rather than fails: a runaway Expand goes on allocating, and a
// panic ends the test binary at once, naming the input.
func expandWithin(spec string, kind Kind) ([]string, error) {
	type result struct {
		vs  []string
		err error
	}
	done := make(chan result, 1)
	go func() {
		vs, err := Expand(spec, kind)
		done <- result{vs, err}
	}()
	select {
	case r := <-done:
		return r.vs, r.err
	case <-time.After(2 * time.Second):
		panic(fmt.Sprintf("Expand(%q, %d) still runs after 2s", spec, kind))
	}
}

// FuzzExpand: whatever the spec, Expand returns quickly, at most config.MaxValues
// values, each of which is a value of its kind that expands to itself, lies
// within the item that named it, and Expand of the spec is the values of its
// items one after another.
func FuzzExpand(f *testing.F) {
	for _, s := range []struct {
		spec string
		kind Kind
	}{
		// The flags' defaults and the examples of sweep --help and docs/sweep.md.
		{"4", Int}, {"1", Int}, {"workers", Words}, {"workers,runtime,4", Words},
		{"0.1:1:0.1", Float}, {"0.1,0.25,0.5,1", Float}, {"1ms:100ms:*2", Duration},
		{"5ms,10ms,100ms", Duration}, {"1:4:1,8,16", Int}, {"1:10:*1.5", Int},
		{"0.5:2:+0.5", Float}, {"10ms:50ms:10ms", Duration},
		// Near the ends of each kind: byte mutation seldom builds twenty-digit numbers.
		{"1e300", Float}, {"9223372036854775807", Int}, {"2562047h47m16.854775807s", Duration},
		{"9007199254740993", Words}, {"1e17:1e17:1", Float}, {"1e300:1e300:1", Float},
		// Rejected ones, for the error paths.
		{"1:2", Float}, {"1:0.5:0.1", Float}, {"0.1:1:0", Float}, {"1ms:10ms:*1", Duration},
		{"0:10:*2", Int}, {"workers:8:1", Words}, {"0.001:1000:0.001", Float}, {"0.1,,0.2", Float},
	} {
		f.Add(s.spec, uint8(s.kind))
	}
	f.Fuzz(func(t *testing.T, spec string, k uint8) {
		kind := Kind(k % 4)
		values, err := expandWithin(spec, kind)
		if err != nil {
			if values != nil {
				t.Fatalf("values %q returned with an error", values)
			}
			return
		}
		if len(values) == 0 || len(values) > config.MaxValues {
			t.Fatalf("Expand(%q, %d) gave %d values, want 1 to %d", spec, kind, len(values), config.MaxValues)
		}
		var concat []string
		for _, item := range strings.Split(spec, ",") {
			vs, err := expandWithin(item, kind)
			if err != nil {
				t.Fatalf("Expand(%q, %d) succeeded but its item %q fails: %v", spec, kind, item, err)
			}
			checkWithin(t, item, kind, vs)
			concat = append(concat, vs...)
		}
		if !slices.Equal(values, concat) {
			t.Fatalf("Expand(%q, %d) = %q, but its items one by one give %q", spec, kind, values, concat)
		}
		for _, v := range values {
			again, err := expandWithin(v, kind)
			if err != nil || len(again) != 1 || again[0] != v {
				t.Fatalf("value %q of Expand(%q, %d) expands to %q, %v: want itself", v, spec, kind, again, err)
			}
		}
	})
}

// checkWithin fails unless every value of one item lies within it: equal to
// a single value (up to the rounding format does), between start and stop
// (plus Expand's tolerance) for a range.
func checkWithin(t *testing.T, item string, kind Kind, vs []string) {
	t.Helper()
	item = strings.TrimSpace(item)
	parts := strings.Split(item, ":")
	if len(parts) == 1 && kind == Words && (item == "workers" || item == "runtime") {
		if len(vs) != 1 || vs[0] != item {
			t.Fatalf("%q expands to %q", item, vs)
		}
		return
	}
	if len(parts) == 1 {
		// A single value comes back exactly: compared as itself, not as a
		// float64, which holds integers exactly only to 2^53.
		exact := func(s string) (any, error) {
			switch kind {
			case Duration:
				return time.ParseDuration(s)
			case Float:
				return strconv.ParseFloat(s, 64)
			}
			return strconv.Atoi(s)
		}
		want, err := exact(item)
		if err != nil {
			t.Fatalf("item %q expanded, yet does not parse: %v", item, err)
		}
		if got, err := exact(vs[0]); len(vs) != 1 || err != nil || got != want {
			t.Fatalf("%q expands to %q, want the same value", item, vs)
		}
		return
	}
	lo, err := parse(strings.TrimSpace(parts[0]), kind)
	if err != nil {
		t.Fatalf("item %q expanded, yet its start does not parse: %v", item, err)
	}
	hi := lo
	if len(parts) == 3 {
		if hi, err = parse(strings.TrimSpace(parts[1]), kind); err != nil {
			t.Fatalf("item %q expanded, yet its stop does not parse: %v", item, err)
		}
	}
	// Expand's tolerance for the last value of a range, then what formatting
	// may move a value: a nanosecond, a whole number (Int truncates), the
	// ninth decimal.
	tol := (hi - lo) * 1e-9
	if kind == Float {
		tol += 1e-9 + math.Abs(hi)*1e-15
	} else {
		tol += 1
	}
	for _, v := range vs {
		x, err := parse(v, kind)
		if err != nil {
			t.Fatalf("value %q of %q does not parse as its kind: %v", v, item, err)
		}
		if !(x >= lo-tol && x <= hi+tol) {
			t.Fatalf("value %q of %q lies outside [%v, %v]", v, item, lo, hi)
		}
	}
}
