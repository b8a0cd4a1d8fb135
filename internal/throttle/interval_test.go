package throttle

import (
	"encoding/binary"
	"slices"
	"testing"
)

func TestUnion(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []Interval
		want []Interval
	}{
		{"nil", nil, []Interval{}},
		{"empty and inverted dropped", []Interval{{5, 5}, {9, 3}}, []Interval{}},
		{"one", []Interval{{1, 4}}, []Interval{{1, 4}}},
		{"sorted", []Interval{{7, 9}, {1, 4}}, []Interval{{1, 4}, {7, 9}}},
		{"overlapping merged", []Interval{{1, 5}, {3, 8}}, []Interval{{1, 8}}},
		{"touching merged", []Interval{{1, 5}, {5, 8}}, []Interval{{1, 8}}},
		{"contained", []Interval{{1, 10}, {2, 3}, {4, 6}}, []Interval{{1, 10}}},
		{"gap of one kept", []Interval{{1, 5}, {6, 8}}, []Interval{{1, 5}, {6, 8}}},
		{"chain out of order", []Interval{{6, 9}, {1, 3}, {2, 6}, {20, 21}, {9, 9}}, []Interval{{1, 9}, {20, 21}}},
		{"negative times", []Interval{{-10, -5}, {-6, 0}}, []Interval{{-10, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got := Union(tc.in)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Union(%v) = %v, want %v", tc.in, got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Errorf("Union modified its input: %v, was %v", tc.in, in)
			}
		})
	}
}

func TestClip(t *testing.T) {
	in := []Interval{{0, 10}, {5, 15}, {20, 30}, {-5, 0}, {30, 40}, {12, 12}, {1, 29}}
	got := Clip(in, 5, 30)
	want := []Interval{{5, 10}, {5, 15}, {20, 30}, {5, 29}}
	if !slices.Equal(got, want) {
		t.Errorf("Clip = %v, want %v", got, want)
	}
	if got := Clip(nil, 0, 10); len(got) != 0 {
		t.Errorf("Clip(nil) = %v, want empty", got)
	}
	if got := Clip(in, 10, 10); len(got) != 0 {
		t.Errorf("Clip to an empty window = %v, want empty", got)
	}
}

// covered reports whether x lies in one of ivs (half-open).
func covered(ivs []Interval, x int64) bool {
	for _, iv := range ivs {
		if iv.Start <= x && x < iv.End {
			return true
		}
	}
	return false
}

// FuzzUnion checks Union's promise on any input: sorted, disjoint and not
// touching, non-empty, and covering exactly the input's points. Coverage is
// piecewise constant between endpoints, so checking at every endpoint and
// one before it checks every point.
func FuzzUnion(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 5, 3, 8, 5, 5, 9, 2})
	f.Add([]byte{10, 20, 20, 30, 0, 255, 40, 41})
	f.Fuzz(func(t *testing.T, data []byte) {
		var in []Interval
		for len(data) >= 4 {
			s := int64(int16(binary.LittleEndian.Uint16(data)))
			e := int64(int16(binary.LittleEndian.Uint16(data[2:])))
			in = append(in, Interval{s, e})
			data = data[4:]
		}
		got := Union(in)
		for i, iv := range got {
			if iv.End <= iv.Start {
				t.Fatalf("Union(%v) has an empty interval %v", in, iv)
			}
			if i > 0 && iv.Start <= got[i-1].End {
				t.Fatalf("Union(%v) = %v: %v does not come strictly after %v", in, got, iv, got[i-1])
			}
		}
		var points []int64
		for _, iv := range append(slices.Clone(in), got...) {
			points = append(points, iv.Start-1, iv.Start, iv.End-1, iv.End)
		}
		for _, x := range points {
			if covered(in, x) != covered(got, x) {
				t.Fatalf("Union(%v) = %v: point %d covered by input %v, by union %v", in, got, x, covered(in, x), covered(got, x))
			}
		}
	})
}
