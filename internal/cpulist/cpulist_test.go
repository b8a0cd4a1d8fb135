package cpulist

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for in, want := range map[string][]int{
		"0-3,8,10-11\n": {0, 1, 2, 3, 8, 10, 11},
		"5":             {5},
		"3,1,2-3":       {1, 2, 3}, // cpuset.cpus as a person writes it: sorted, deduplicated
		"":              nil,
		"\n":            nil,
		"8191":          {8191},
	} {
		got, err := Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, "%q", in)
	}
	for _, in := range []string{"a", "1-", "-1", "3-1", "1,,2", "0-8192", "+1", "1-2-3", "1 2"} {
		_, err := Parse(in)
		assert.ErrorIs(t, err, ErrParse, "%q", in)
	}
}

func TestFormat(t *testing.T) {
	for want, ids := range map[string][]int{
		"0-3,8,10-11": {0, 1, 2, 3, 8, 10, 11},
		"5":           {5},
		"":            nil,
		"0,2,4":       {0, 2, 4},
	} {
		assert.Equal(t, want, Format(ids))
		back, err := Parse(want)
		require.NoError(t, err)
		assert.Equal(t, ids, back)
	}
}

// FuzzParse: whatever a cpuset file or --cpuset holds, Parse either
// refuses it or returns ascending ids within bounds that Format writes
// back to the same set.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0-3,8,10-11", "", "5\n", "3,1,2-3", "0-8191", "1-", "9-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := Parse(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Fatalf("%q: %v not ascending and distinct", s, ids)
		}
		if len(ids) > 0 && (ids[0] < 0 || ids[len(ids)-1] > MaxCPU) {
			t.Fatalf("%q: %v out of bounds", s, ids)
		}
		back, err := Parse(Format(ids))
		if err != nil || !slices.Equal(back, ids) {
			t.Fatalf("%q: %v → %q → %v, %v", s, ids, Format(ids), back, err)
		}
	})
}
