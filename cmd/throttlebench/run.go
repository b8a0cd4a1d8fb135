package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
)

type runOptions struct {
	workload   string
	workers    int
	batch      int
	iterations int
	minTime    time.Duration
	warmup     int
	cost       int
	limits     limitFlags
	mode       string
	version    string
	parent     string
	gomaxprocs string
	format     string
	output     string
	timeout    time.Duration
}

func newCmdRun(stdout, stderr io.Writer) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run bcrypt batches in a cgroup slice with the given CPU limits and report statistics",
		Example: `  sudo throttlebench run --cpus 0.1 --workers 2 --batch 50 --iterations 5
  docker run --cpu-period=10000 --cpu-quota=1000 throttlebench:dev run --batch 50
  throttlebench run --cgroup current --format text`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkChoice("format", o.format, report.Formats); err != nil {
				return err
			}
			h, err := o.resolve(func(name string) bool { return cmd.Flags().Changed(name) }, stderr)
			if err != nil {
				return err
			}
			return runRun(cmd.Context(), o, h, stdout)
		},
	}
	f := cmd.Flags()
	o.registerShared(cmd, report.Formats, "json")
	f.IntVar(&o.workers, "workers", 1, "worker threads, each running --batch operations per iteration")
	f.IntVar(&o.cost, "cost", 4, "bcrypt cost, 4–31 (4 ≈ 1ms per hash, each step doubles it)")
	f.StringVar(&o.gomaxprocs, "gomaxprocs", "workers", "GOMAXPROCS of the workload: a number, workers (each worker can run in parallel) or runtime (Go's cgroup-aware default)")
	o.limits.register(cmd)
	return cmd
}

// maxMinTime bounds --min-time: a benchmark, not a soak test. Whatever the
// time, bench.MaxIterations bounds the iterations too. The usage message
// says "1h".
const maxMinTime = time.Hour

// registerShared registers the flags that run and sweep share.
func (o *runOptions) registerShared(cmd *cobra.Command, formats []string, defaultFormat string) {
	f := cmd.Flags()
	f.StringVar(&o.workload, "workload", "bcrypt", "CPU-bound workload: bcrypt")
	f.IntVar(&o.batch, "batch", 50, "operations (bcrypt hashes) per worker per iteration")
	f.IntVar(&o.iterations, "iterations", 5, "measured iterations, at least")
	f.DurationVar(&o.minTime, "min-time", 0, "after --iterations, keep measuring until the measured iterations span this long, up to 1h (0 = off)")
	f.IntVar(&o.warmup, "warmup", 1, "iterations run first and discarded")
	f.StringVar(&o.mode, "cgroup", runner.ModeAuto, "auto (create a slice when allowed, else measure the current cgroup), create, current")
	f.StringVar(&o.version, "cgroup-version", "auto", "cgroup version to use: auto, 1, 2")
	f.StringVar(&o.parent, "parent", "", "cgroup under which slices are created (default: throttlebench at the top of the cpu hierarchy)")
	f.StringVar(&o.format, "format", defaultFormat, "output format: "+strings.Join(formats, ", "))
	f.StringVarP(&o.output, "output", "o", "", "write the result to this file (atomically) instead of stdout")
	f.DurationVar(&o.timeout, "timeout", 0, "give up after this long, cleaning up everything (0 = no limit)")
}

func (l *limitFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&l.period, "period", "", "CFS period, 1ms–1s (default 100ms)")
	f.StringVar(&l.quota, "quota", "", "CFS quota per period, ≥ 1ms, or max (default max)")
	f.StringVar(&l.cpus, "cpus", "", "CPUs allowed, like docker --cpus: quota = cpus × period")
	f.StringVar(&l.burst, "burst", "", "CFS burst, ≤ quota: unused quota that may be saved up")
}

// resolve validates every flag before anything is created. changed says
// whether the user gave a flag.
func (o *runOptions) resolve(changed func(name string) bool, stderr io.Writer) (runner.Options, error) {
	var h runner.Options
	host := cgroup.Host{Root: "/"}
	if err := checkChoice("workload", o.workload, bench.Workloads); err != nil {
		return h, err
	}
	for _, c := range []struct {
		flag string
		v    int
	}{{"workers", o.workers}, {"batch", o.batch}, {"iterations", o.iterations}, {"warmup", o.warmup}, {"cost", o.cost}} {
		if err := checkInt(c.flag, c.v); err != nil {
			return h, err
		}
	}
	if o.minTime < 0 || o.minTime > maxMinTime {
		return h, usagef("invalid --min-time %v: want a duration between 0 (off) and 1h", o.minTime)
	}
	limits, limitsSet, err := o.limits.resolve()
	if err != nil {
		return h, err
	}
	if err := checkChoice("cgroup", o.mode, []string{runner.ModeAuto, runner.ModeCreate, runner.ModeCurrent}); err != nil {
		return h, err
	}
	if o.mode == runner.ModeCurrent {
		values := map[string]string{"cpus": o.limits.cpus, "quota": o.limits.quota, "period": o.limits.period, "burst": o.limits.burst, "parent": o.parent}
		for _, name := range []string{"cpus", "quota", "period", "burst", "parent"} {
			if changed(name) {
				return h, usagef("--%s %q cannot be used with --cgroup current: it measures the limits already in place", name, values[name])
			}
		}
	}
	if err := checkChoice("cgroup-version", o.version, []string{"auto", "1", "2"}); err != nil {
		return h, err
	}
	version, _ := strconv.Atoi(o.version) // "auto" → 0
	// A parent the user names must exist inside the cpu hierarchy: checked
	// here, so that a bad one creates nothing. Without a hierarchy the
	// runner says so (or falls back to the current cgroup).
	parent := o.parent
	if o.parent != "" {
		if hier, err := host.CPUHierarchy(version); err == nil {
			if parent, err = hier.ParentDir(o.parent); err != nil {
				return h, usagef("invalid --parent %q: %v", o.parent, err)
			}
		}
	}
	gmp, err := parseGOMAXPROCS(o.gomaxprocs, o.workers)
	if err != nil {
		return h, err
	}
	if err := checkOutput("output", o.output); err != nil {
		return h, err
	}
	if o.timeout < 0 || o.timeout > maxTimeout {
		return h, usagef("invalid --timeout %v: want a duration between 0 (no limit) and %v", o.timeout, maxTimeout)
	}
	exe, err := os.Executable()
	if err != nil {
		return h, err
	}
	return runner.Options{
		Bench: bench.Config{Workload: o.workload, Cost: o.cost, Batch: o.batch, Iterations: o.iterations,
			Warmup: o.warmup, Workers: o.workers, GOMAXPROCS: gmp, MinTime: o.minTime},
		Policy: o.gomaxprocs, Mode: o.mode, Version: version, Parent: parent,
		Limits: limits, LimitsSet: limitsSet, Host: host, Exe: exe, Stderr: stderr,
	}, nil
}

func runRun(ctx context.Context, o *runOptions, h runner.Options, stdout io.Writer) error {
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	rep, err := runner.NewLocal().Run(ctx, h)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the run exceeded --timeout %v and was stopped; nothing left behind", o.timeout)
	}
	if err != nil {
		return err
	}
	return writeOutput(o.output, stdout, func(w io.Writer) error { return report.Write(w, rep, o.format) })
}
