package config

import (
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// CPUsExample is how a number of CPUs may be written, for the messages
// that refuse one.
const CPUsExample = "such as 0.5 or 500m"

// ParseCPUs reads a number of CPUs as Kubernetes writes a CPU quantity
// (resource.ParseQuantity): 2, 1.5, 500m (millicores), 1e-1; the limits
// throttlebench prints (850m) read back. ok is false for anything else,
// and for NaN or an infinity; the range is the caller's to check, with its
// flag in the message. One parser for every flag that takes CPUs: --cpus
// of run, sweep and latency, size's --cpus-min, --cpus-max and --step,
// sample's --limit.
func ParseCPUs(v string) (cpus float64, ok bool) {
	t := strings.TrimSpace(v)
	// A quantity needs a number: ParseQuantity reads "m" as 0.
	if !strings.ContainsAny(t, "0123456789") {
		return 0, false
	}
	q, err := resource.ParseQuantity(t)
	if err != nil {
		return 0, false
	}
	// Through the exact decimal: 0.15 reads as the float64 nearest 0.15,
	// as strconv gives it, not as 15 × 0.01.
	f, err := strconv.ParseFloat(q.AsDec().String(), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// CPUsList is spec, --cpus of sweep and latency (a list of values and
// ranges start:stop:step), with every quantity that is not a plain number
// (500m, 1.5k) written as one (0.5, 1500), so that the list reads as the
// sweep's numbers do. What is neither (max, *2, a typo) is kept as given,
// for the list's own checks to take or refuse.
func CPUsList(spec string) string {
	items := strings.Split(spec, ",")
	for i, item := range items {
		parts := strings.Split(item, ":")
		for j, part := range parts {
			t := strings.TrimSpace(part)
			if _, err := strconv.ParseFloat(t, 64); err == nil || strings.HasPrefix(t, "*") {
				continue
			}
			if c, ok := ParseCPUs(t); ok {
				parts[j] = strconv.FormatFloat(c, 'f', -1, 64)
			}
		}
		items[i] = strings.Join(parts, ":")
	}
	return strings.Join(items, ",")
}
