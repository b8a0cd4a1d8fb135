package sweep

import "slices"

// SharedWarnings are the warnings every configuration that ran has, word
// for word, in the first one's order; none where fewer than two ran. A
// list says them once, unlabelled, instead of once per configuration
// (issue 33), as latency's table does.
func SharedWarnings[R any](rows []Outcome[R], warnings func(R) []string) []string {
	var ran [][]string
	for _, r := range rows {
		if r.Skipped == "" {
			ran = append(ran, warnings(r.Report))
		}
	}
	if len(ran) < 2 {
		return nil
	}
	var shared []string
	for _, w := range ran[0] {
		if !slices.Contains(shared, w) && !slices.ContainsFunc(ran[1:], func(ws []string) bool { return !slices.Contains(ws, w) }) {
			shared = append(shared, w)
		}
	}
	return shared
}
