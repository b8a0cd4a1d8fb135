package main

import (
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/show"
)

// loadRuns reads the run or sweep results compare and sweep --from read
// from path, named which (OLD, NEW, --from). A result of another kind
// (latency, sample, simulate, size) is one, not "not a throttlebench
// result" (issue 33): the refusal says so and names show, which reads it.
func loadRuns(which, path string) ([]report.Report, error) {
	s, err := readSide(which, path)
	if err == nil && s.kind == "size" {
		return nil, otherKind(which, path, s.kind)
	}
	return s.reps, err
}

// side is one file compare reads: run or sweep results, or a size result
// (compare compares two of those); kind is its kind as show names it.
type side struct {
	kind string
	reps []report.Report
	size compare.SizeSide
}

// readSide reads path, named which: run or sweep results, or a size
// result. A result of another kind show reads is an error with its kind
// set; a file that is no result, one with no kind.
func readSide(which, path string) (side, error) {
	reps, err := compare.LoadFile(which, path)
	if err == nil {
		if len(reps) > 1 {
			return side{kind: "sweep", reps: reps}, nil
		}
		return side{kind: "run", reps: reps}, nil
	}
	r, serr := show.Read(path)
	switch {
	case serr != nil || r.Kind() == "run" || r.Kind() == "sweep":
		return side{}, err
	case r.Kind() == "size":
		s, err := compare.LoadSizeFile(which, path)
		return side{kind: "size", size: s}, err
	}
	return side{kind: r.Kind()}, otherKind(which, path, r.Kind())
}

func otherKind(which, path, kind string) error {
	return badinput.Errorf(strings.TrimPrefix(which, "--"), "invalid %s %q: a %s result, and only run and sweep results are read here; throttlebench show %s shows it",
		which, path, kind, path)
}
