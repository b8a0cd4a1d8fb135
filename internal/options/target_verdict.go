package options

import (
	"errors"
	"fmt"
	"strings"

	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/words"
)

// TargetFailed is the run's failure, nil when every configuration passed its
// rule (build.TargetFailure) and no --serve server exited: each failed
// configuration's reason, and the server's exit, on one line. It is
// judged once the output is written: a failed target's result stays.
func TargetFailed(rows []latency.Row, rule build.FailureRule) error {
	var why []string
	for _, r := range rows {
		msg := build.TargetFailure(r.Report, rule)
		if msg == "" {
			continue
		}
		if d := sweep.Describe(r.Config); len(rows) > 1 && d != "" {
			msg = d + ": " + msg
		}
		why = append(why, msg)
	}
	if err := serverExited(rows); err != nil {
		why = append(why, err.Error())
	}
	if len(why) == 0 {
		return nil
	}
	return errors.New("the target failed: " + strings.Join(why, "; "))
}

// serverExited fails a run whose --serve server exited on its own during
// a configuration: its result is written, its requests counted, and the
// exit status says the measurement is not the server's; the error ends
// with the server's last lines on stderr.
func serverExited(rows []latency.Row) error {
	for _, r := range rows {
		if r.Report != nil && r.Report.TargetResult != nil && r.Report.ServerExited != "" {
			msg := fmt.Sprintf("the server exited during the run (%s)", r.Report.ServerExited)
			if d := sweep.Describe(r.Config); d != "" && len(rows) > 1 {
				msg = fmt.Sprintf("the server exited during the run of %s (%s)", d, r.Report.ServerExited)
			}
			return errors.New(words.WithStderr(msg, strings.Join(r.Report.ServerStderr, "\n")))
		}
	}
	return nil
}
