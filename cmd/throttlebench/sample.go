package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// Bounds of sample's flags: below 1 ms the reading itself (tens of µs) and
// the timer's lateness are a large part of an interval; a day of 10 ms
// intervals is already 8.6 million values.
const (
	minSampleInterval = time.Millisecond
	maxSampleInterval = 10 * time.Second
	maxSampleDuration = 24 * time.Hour
	maxLimitCPUs      = 1024
)

type sampleOptions struct {
	cgroup, pid, interval, duration, limit, target string
	format, output, plot                           string
}

// sampleRun is what the flags resolve to.
type sampleRun struct {
	interval, duration time.Duration
	limit, target      float64 // CPUs (0: none); fraction
	format, output     string
	plot               string // .svg or .png; "" for none
}

func newCmdSample(stdout, stderr io.Writer) *cobra.Command {
	o := &sampleOptions{}
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Sample a cgroup's CPU usage at the scale the bandwidth controller works (100 ms)",
		Long: `sample reads a cgroup's CPU usage counter (v1 cpuacct.usage, v2 cpu.stat
usage_usec) every --interval for --duration, or until Ctrl-C, and writes the
usage of each interval in CPUs with its summary at that interval and at 1 s,
the share of intervals above --limit, the smallest limit that leaves at most
--target of intervals above it, and the smallest burst that absorbs the spikes
above the limit; --plot draws the usage over time at both scales, with the
limit. It creates nothing and changes nothing.

The cgroup is given by its directory (on cgroup v1 in the cpu or the cpuacct
hierarchy), by its path relative to the top of the hierarchy, by --pid, or is
the current one. Ctrl-C ends sampling and writes what was collected: the
normal end without --duration (exit 0); with --duration the output is written
and the exit code says it was cut short (130/143).`,
		Example: `  sudo throttlebench sample --cgroup /sys/fs/cgroup/cpu/kubepods.slice/pod1 --duration 60s --limit 4
  throttlebench sample --pid 1234 --duration 30s -o usage.json
  throttlebench sample --interval 10ms --duration 5s --format text
  throttlebench sample --duration 60s --limit 2 --plot usage.png --format text`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := o.resolve()
			if err != nil {
				return err
			}
			cg, err := o.lookup(cgroup.Host{Root: "/"})
			if err != nil {
				return err
			}
			return runSample(cmd.Context(), r, cg, usage.NewClock(), stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.cgroup, "cgroup", "", "the cgroup to sample: its directory, or its path relative to the top of the hierarchy (default: the current one)")
	f.StringVar(&o.pid, "pid", "", "sample the cgroup of this process")
	f.StringVar(&o.interval, "interval", "100ms", "time between readings, 1ms–10s")
	f.StringVar(&o.duration, "duration", "0", "how long to sample, from --interval to 24h; 0: until Ctrl-C")
	f.StringVar(&o.limit, "limit", "", "a CPU limit to judge the trace against, in CPUs (such as 4 or 0.5)")
	f.StringVar(&o.target, "target", "1%", "the share of intervals the advised limit may leave above it, in percent, between 0 and 100")
	f.StringVar(&o.format, "format", "json", "output format: "+strings.Join(usage.Formats, ", "))
	f.StringVarP(&o.output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&o.plot, "plot", "", "also draw the usage over time, per interval and per 1s, with --limit, into this .svg or .png file")
	return cmd
}

// resolve checks every flag before anything is read.
func (o *sampleOptions) resolve() (sampleRun, error) {
	var r sampleRun
	var err error
	if r.interval, err = time.ParseDuration(o.interval); err != nil || r.interval < minSampleInterval || r.interval > maxSampleInterval {
		return r, usagef("invalid --interval %q: want a duration between %v and %v, such as 100ms", o.interval, minSampleInterval, maxSampleInterval)
	}
	r.duration, err = time.ParseDuration(o.duration)
	if err != nil || r.duration != 0 && (r.duration < r.interval || r.duration > maxSampleDuration) {
		return r, usagef("invalid --duration %q: want 0 (until Ctrl-C) or a duration between --interval %v and %v", o.duration, r.interval, maxSampleDuration)
	}
	if o.limit != "" {
		r.limit, err = strconv.ParseFloat(strings.TrimSpace(o.limit), 64)
		if err != nil || !(r.limit > 0 && r.limit <= maxLimitCPUs) {
			return r, usagef("invalid --limit %q: want a number of CPUs above 0 and at most %d, such as 4 or 0.5", o.limit, maxLimitCPUs)
		}
	}
	pct, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(o.target), "%")), 64)
	if err != nil || !(pct > 0 && pct < 100) {
		return r, usagef("invalid --target %q: want a percentage between 0 and 100 (exclusive), such as 1 or 1%%", o.target)
	}
	r.target = pct / 100
	if o.pid != "" {
		if pid, err := strconv.Atoi(o.pid); err != nil || pid < 1 {
			return r, usagef("invalid --pid %q: want a process ID, a whole number from 1", o.pid)
		}
		if o.cgroup != "" {
			return r, usagef("--pid %q conflicts with --cgroup %q: name the cgroup one way", o.pid, o.cgroup)
		}
	}
	if err := checkChoice("format", o.format, usage.Formats); err != nil {
		return r, err
	}
	if err := checkOutput("output", o.output); err != nil {
		return r, err
	}
	if err := checkPlot(o.plot); err != nil {
		return r, err
	}
	r.format, r.output, r.plot = o.format, o.output, o.plot
	return r, nil
}

// lookup finds the cgroup whose counter is read. A cgroup or process that
// does not exist is bad input; a host without a usage counter is not.
func (o *sampleOptions) lookup(h cgroup.Host) (cgroup.Cgroup, error) {
	flag, value := "cgroup", o.cgroup
	var cg cgroup.Cgroup
	var err error
	if o.pid != "" {
		pid, _ := strconv.Atoi(o.pid) // checked by resolve
		flag, value = "pid", o.pid
		cg, err = h.UsageCgroupOfPID(pid)
	} else {
		cg, err = h.UsageCgroup(o.cgroup)
	}
	if errors.Is(err, cgroup.ErrNoCgroup) || errors.Is(err, cgroup.ErrNoProcess) {
		return cg, usagef("invalid --%s %q: %v", flag, value, err)
	}
	return cg, err
}

// runSample samples cg and writes what it collected, also when interrupted
// or when the cgroup went away: a trace cut short is still a trace.
func runSample(ctx context.Context, r sampleRun, cg cgroup.Cgroup, clock usage.Clock, stdout, stderr io.Writer) error {
	counter := "cpuacct.usage"
	if cg.Version == 2 {
		counter = "cpu.stat usage_usec"
	}
	if r.duration == 0 {
		fmt.Fprintf(stderr, "throttlebench: sampling %s every %v until Ctrl-C\n", cg.Dir, r.interval)
	}
	started := time.Now()
	rec := usage.Sampler{Counter: cg, Clock: clock, Interval: r.interval, Duration: r.duration, CPU: host.ProcessCPU}.Run(ctx)
	if rec.Trace.Len() == 0 {
		if rec.Err != nil {
			return rec.Err
		}
		return fmt.Errorf("stopped before the first interval of %v ended: nothing to write", r.interval)
	}
	f := usage.Build(rec, usage.Meta{
		Cgroup:    usage.CgroupInfo{Version: cg.Version, Path: cg.Path, Dir: cg.Dir, Counter: counter},
		StartedAt: started, Limit: r.limit, Target: r.target,
	})
	if err := writeOutput(r.output, stdout, func(w io.Writer) error { return usage.Write(w, f, r.format) }); err != nil {
		return err
	}
	if r.plot != "" {
		if err := plot.SaveUsage(r.plot, f); err != nil {
			return err
		}
	}
	switch {
	case rec.Err != nil:
		return fmt.Errorf("sampling stopped after %d intervals, which were written: %w", rec.Trace.Len(), rec.Err)
	case rec.Interrupted && r.duration > 0:
		// Written whole; the exit code (130/143) says it is shorter than asked.
		return context.Cause(ctx)
	}
	return nil
}
