package topology

import (
	"slices"
	"testing"
)

// FuzzParseList: whatever a cpuset file or --cpuset holds, ParseList either
// refuses it or returns ascending ids within bounds that FormatList writes
// back to the same set.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"0-3,8,10-11", "", "5\n", "3,1,2-3", "0-8191", "1-", "9-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := ParseList(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Fatalf("%q: %v not ascending and distinct", s, ids)
		}
		if len(ids) > 0 && (ids[0] < 0 || ids[len(ids)-1] > MaxCPU) {
			t.Fatalf("%q: %v out of bounds", s, ids)
		}
		back, err := ParseList(FormatList(ids))
		if err != nil || !slices.Equal(back, ids) {
			t.Fatalf("%q: %v → %q → %v, %v", s, ids, FormatList(ids), back, err)
		}
	})
}
