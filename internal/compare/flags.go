package compare

import (
	"fmt"
	"os"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

// What --fail-on accepts: which verdicts fail a comparison (exit 3).
const (
	FailOnRegression = "regression"
	FailOnChange     = "change"
	FailOnNever      = "never"
)

// FailOns are the values of --fail-on.
var FailOns = []string{FailOnRegression, FailOnChange, FailOnNever}

// Run is what compare's flags resolve to (options.Compare.Resolve): the
// comparison's options, and what becomes of its result.
type Run struct {
	Options
	FailOn, Format, Output string
	Columns                table.Columns
}

// LoadFile reads the results in one file, named which (OLD, NEW, --from)
// in its errors; a file that cannot be read, or holds no result, is bad
// input.
func LoadFile(which, path string) ([]report.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, badinput.Errorf(strings.TrimPrefix(which, "--"), "invalid %s %q: %v; want a result file written by throttlebench run or sweep", which, path, badinput.PathCause(err))
	}
	defer f.Close()
	reps, err := report.Load(f)
	if err != nil {
		return nil, badinput.Errorf(strings.TrimPrefix(which, "--"), "invalid %s %q: %v", which, path, err)
	}
	return reps, nil
}

// Failed is the verdict of --fail-on: the significant changes it counts
// (regressions; with change, improvements too), the first five of them
// named, in one line; nil when there are none, or with never.
func (res Result) Failed(failOn string) error {
	if failOn == FailOnNever {
		return nil
	}
	var flagged []Row
	for _, r := range res.Rows {
		if r.Verdict == Regression || (failOn == FailOnChange && r.Verdict == Improvement) {
			flagged = append(flagged, r)
		}
	}
	if len(flagged) == 0 {
		return nil
	}
	what := "significant regression"
	if failOn == FailOnChange {
		what = "significant change"
	}
	var list []string
	for i, r := range flagged {
		if i == 5 {
			list = append(list, fmt.Sprintf("and %d more", len(flagged)-i))
			break
		}
		pct, p, what := r.Judged()
		list = append(list, fmt.Sprintf("%s: %s %+.1f%% (%s)", r.Key, what, pct, pText(p)))
	}
	return fmt.Errorf("%s in %d of %d configurations: %s", what, len(flagged), len(res.Rows), strings.Join(list, "; "))
}
