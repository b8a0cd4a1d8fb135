package host

import (
	"errors"
	"os"
	"testing"
)

// FuzzParseStat: whatever /proc/stat holds, ParseStat does not panic, fails
// only with ErrParse, and a success has at least one CPU and an idle time
// that is a whole number of ticks, not one wrapped around to negative.
func FuzzParseStat(f *testing.F) {
	data, err := os.ReadFile("testdata/two-cpus/proc/stat")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("cpu 1 2 3 400 5\ncpu0 1 2 3 400 5\n"))
	// The most ticks a field holds: byte mutation seldom builds such numbers.
	f.Add([]byte("cpu 0 0 0 922337203685 922337203685\ncpu0 0 0 0 0 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseStat(data)
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("error for %q does not wrap ErrParse: %v", data, err)
			}
			return
		}
		if got.CPUs < 1 || got.Idle < 0 || got.Idle%Tick != 0 {
			t.Fatalf("%+v from %q: want at least one CPU and whole ticks ≥ 0", got, data)
		}
	})
}
