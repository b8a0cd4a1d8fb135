package main

import (
	"strings"

	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/show"
)

// loadRuns reads the run or sweep results compare and sweep --from read
// from path, named which (OLD, NEW, --from). A result of another kind
// (latency, sample, simulate) is one, not "not a throttlebench result"
// (issue 33): the refusal says so and names show, which reads it.
func loadRuns(which, path string) ([]report.Report, error) {
	reps, err := compare.LoadFile(which, path)
	if err == nil {
		return reps, nil
	}
	if r, serr := show.Read(path); serr == nil && r.Kind() != "run" && r.Kind() != "sweep" {
		return nil, config.Usagef(strings.TrimPrefix(which, "--"), "invalid %s %q: a %s result, and only run and sweep results are read here; throttlebench show %s shows it",
			which, path, r.Kind(), path)
	}
	return nil, err
}
