package config

import (
	"maps"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
)

// NeedsUnit refuses v, a value of flag that takes a duration, where it is
// a plain number other than 0 (--work 4): Go's durations have no default
// unit, so the line says which the user most likely meant ("4ms?",
// "30s?" for how long a run lasts) rather than only that 4 is no duration. nil for anything else,
// which the flag's own parser takes or refuses.
func NeedsUnit(flag, v string) error {
	t := strings.TrimSpace(v)
	if !plainNumber(t) || strings.Trim(t, "0.") == "" {
		return nil
	}
	return badinput.Errorf(flag, "invalid --%s %q: a duration needs a unit: %s%s?", flag, v, t, likelyUnit(flag))
}

// likelyUnit is the unit a bare number most likely meant for flag: seconds
// for how long a run lasts (--duration 30), else milliseconds, the unit of
// a request's work, a period or a burst.
func likelyUnit(flag string) string {
	if slices.Contains([]string{"duration", "min-time", "keep-alive"}, flag) {
		return "s"
	}
	return "ms"
}

// plainNumber says whether s is digits with at most one decimal point:
// 4, 1.5, .5; not -4, 1e3 or inf, which are no slip of a unit.
func plainNumber(s string) bool {
	digits := strings.Trim(s, "0123456789")
	return len(s) > len(digits) && (digits == "" || digits == "." && strings.Count(s, ".") == 1)
}

// CheckUnits refuses, with NeedsUnit's hint, a plain number among the
// given values (by parameter name) of the parameters that take durations:
// one value (run), or a value, an end or a step of the ranges of a list
// (sweep, latency: checked before the list is expanded, whose own error
// would only say that 4 is no duration).
func CheckUnits(given map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(given)) {
		if p, ok := Lookup(name); !ok || p.Kind != Duration {
			continue
		}
		v := given[name]
		for _, item := range strings.Split(v, ",") {
			for _, part := range strings.Split(item, ":") {
				t := strings.TrimPrefix(strings.TrimSpace(part), "+")
				if NeedsUnit(name, t) == nil {
					continue
				}
				if t == strings.TrimSpace(v) {
					return NeedsUnit(name, v)
				}
				// One value of a list or range: the hint names it.
				return badinput.Errorf(name, "invalid --%s %q: %s needs a unit: %s%s?", name, v, t, t, likelyUnit(name))
			}
		}
	}
	return nil
}
