package main

import (
	"context"
	"errors"
	"strings"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/target"
)

// failureRule checks --accept-status and --max-failures into t.rule.
func (t *targetFlags) failureRule() error {
	accept, err := build.ParseAcceptStatus(t.accept)
	if err != nil {
		return config.Usagef("accept-status", "invalid --accept-status %q: %v", t.accept, err)
	}
	pct, share, count, err := build.ParseMaxFailures(t.maxFailures)
	if err != nil {
		return config.Usagef("max-failures", "invalid --max-failures %q: %v", t.maxFailures, err)
	}
	t.rule = build.FailureRule{Accept: accept, Percent: pct, MaxPercent: share, MaxCount: count, AcceptSpec: t.accept, MaxSpec: t.maxFailures}
	return nil
}

// targetFailed is the run's failure, nil when every configuration passed
// its rule (build.TargetFailure) and no --serve server exited: each
// failed configuration's reason, and the server's exit, on one line.
func targetFailed(rows []latency.Row, rule build.FailureRule) error {
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

// latencyWarnings are a list's warnings for stderr: one that every
// configuration has, once and unlabelled; the others labelled with
// their configuration.
func latencyWarnings(rows []latency.Row) []labelled {
	rest, shared := latency.SharedWarnings(rows)
	var out []labelled
	for _, w := range append(unlabelled(shared), outcomeWarnings(rest, func(r *report.Latency) []string { return r.Warnings })...) {
		// A failed target's warning is the error's text (targetFailed),
		// said last: once, not twice.
		if !strings.Contains(w.Text, build.FailedRunWarning) {
			out = append(out, w)
		}
	}
	return out
}

// measureTarget runs one configuration of latency --target and judges it
// by the rule (--accept-status, --max-failures), kept in the result.
func measureTarget(ctx context.Context, local *runner.Local, opts runner.Options, tgt *target.Target, rule build.FailureRule) (*report.Latency, error) {
	rep, err := (&target.Engine{Local: local}).Run(ctx, opts, tgt)
	if err == nil {
		build.JudgeTarget(rep, rule)
	}
	return rep, err
}
