package report

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds Load arbitrary bytes, seeded with every result file the
// compare tests use (real runs and sweeps, and the files they reject).
// Whatever the bytes: no panic; an error wraps ErrInput and is one line
// (compare prints it as its one line of diagnosis); every result returned is
// a result: this schema, a workload, and durations that are all above 0.
func FuzzLoad(f *testing.F) {
	n := 0
	for _, dir := range []string{filepath.Join("..", "compare", "testdata"), filepath.Join("..", "..", "cmd", "throttlebench", "testdata", "compare")} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
			n++
		}
	}
	if n == 0 {
		f.Fatal("no result files to seed from")
	}
	// A sweep array whose element is an array spread over lines.
	f.Add([]byte("[[1,\n2]]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		reps, err := Load(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error does not wrap ErrInput: %v", err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			if reps != nil {
				t.Fatalf("%d results returned with an error", len(reps))
			}
			return
		}
		if len(reps) == 0 {
			t.Fatal("no results and no error")
		}
		for i, r := range reps {
			if r.SchemaVersion != SchemaVersion || r.Config.Workload == "" {
				t.Fatalf("result %d: schema_version %d, workload %q", i+1, r.SchemaVersion, r.Config.Workload)
			}
			if len(r.DurationsMs) == 0 {
				t.Fatalf("result %d has no durations", i+1)
			}
			for j, d := range r.DurationsMs {
				if !(d > 0) || math.IsInf(d, 0) {
					t.Fatalf("result %d: duration %d is %v", i+1, j+1, d)
				}
			}
		}
	})
}
