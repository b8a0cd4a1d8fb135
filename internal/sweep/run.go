package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Runner runs one configuration into a result R: the local harness on a
// real kernel (a run's report for sweep, a latency report for latency),
// fakes in tests.
type Runner[R any] interface {
	Run(ctx context.Context, o plan.Options) (R, error)
}

// RunFunc is a function as a Runner (runner.Local.Latency through a runner.Env, the fleet).
type RunFunc[R any] func(ctx context.Context, o plan.Options) (R, error)

// Run calls f.
func (f RunFunc[R]) Run(ctx context.Context, o plan.Options) (R, error) { return f(ctx, o) }

// Spec is a sweep as the user gave it.
type Spec struct {
	// Axes are the swept parameters' specs ("0.1:1:0.1") by name; Fixed the
	// other parameters the user gave. Parameters in neither take their
	// defaults.
	Axes  map[string]string
	Fixed map[string]string
	// MaxConfigs refuses a larger sweep (a typo in a step makes millions).
	MaxConfigs int
	// Options turns one configuration into what the runner needs (the
	// cgroup mode, parent, …, which every configuration shares).
	Options func(config.Config) (plan.Options, error)
	NumCPU  int
	// Command is whose parameters these are: Batch (sweep) when 0.
	Command config.Command
}

func (s Spec) command() config.Command {
	if s.Command == 0 {
		return config.Batch
	}
	return s.Command
}

// Step is one planned configuration: its options, or why it cannot run.
type Step struct {
	Config Config
	Opts   plan.Options
	Skip   string
}

// Plan expands the axes and resolves every configuration before any runs:
// bad input stops the sweep with nothing created (a badinput.Error); a
// combination that cannot be (a burst above its quota) becomes a skipped
// step.
func Plan(s Spec) ([]Step, error) {
	var axes []Axis
	for name, spec := range s.Axes {
		if p, ok := config.Lookup(name); !ok || !p.Axis || !p.In(s.command()) {
			return nil, badinput.Errorf(name, "invalid --%s %q: it cannot take a list or a range", name, spec)
		}
	}
	for _, p := range config.AxesFor(s.command()) {
		spec, ok := s.Axes[p.Name]
		if !ok {
			continue
		}
		values, err := Expand(spec, p.Kind, p.Words...)
		if err != nil {
			// A list of words: the parameter's own word for the item it
			// refuses says what it takes ("lambda" is no policy, rather
			// than no whole number).
			if p.Kind == config.Words {
				for _, item := range strings.Split(spec, ",") {
					if item = strings.TrimSpace(item); item != "" && !strings.Contains(item, ":") {
						if err := p.Check(item); err != nil {
							return nil, err
						}
					}
				}
			}
			return nil, badinput.Errorf(p.Name, "invalid --%s %q: %v", p.Name, spec, err)
		}
		for _, v := range values {
			if err := p.Check(v); err != nil {
				return nil, err
			}
		}
		axes = append(axes, Axis{Flag: p.Name, Values: values})
	}
	if _, ok := s.Axes["cpus"]; ok {
		if q, ok := s.Axes["quota"]; ok {
			return nil, badinput.Errorf("cpus", "--cpus %q conflicts with --quota %q: give one of them (quota = cpus × period)", s.Axes["cpus"], q)
		}
	}
	// Counted before any configuration is made: --cpus 0.01:1:0.001
	// --workers 1:1000:1 is 991,000 of them.
	if n, fits := Size(axes); !fits || n > s.MaxConfigs {
		return nil, s.tooBig(axes, n, fits)
	}
	configs := Product(axes)
	steps := make([]Step, len(configs))
	for i, c := range configs {
		opts, err := s.resolve(c)
		switch {
		case badinput.IsCombination(err):
			steps[i] = Step{Config: c, Skip: err.Error()}
		case err != nil:
			return nil, err
		default:
			steps[i] = Step{Config: c, Opts: opts}
		}
	}
	return steps, nil
}

// resolve is the runner's options for one configuration.
func (s Spec) resolve(c Config) (plan.Options, error) {
	values := make(map[string]string, len(s.Fixed)+len(c))
	for k, v := range s.Fixed {
		values[k] = v
	}
	for _, p := range c {
		values[p.Flag] = p.Value
	}
	cfg, err := config.ResolveFor(s.command(), values)
	if err != nil {
		return plan.Options{}, err
	}
	return s.Options(cfg)
}

// tooBig refuses a sweep of more than MaxConfigs configurations, saying how
// many there are, where they come from, and how long they would take by the
// CFS model (estimated from up to 1000 of them).
func (s Spec) tooBig(axes []Axis, n int, fits bool) error {
	var sizes []string
	for _, a := range axes {
		sizes = append(sizes, fmt.Sprintf("--%s %d", a.Flag, len(a.Values)))
	}
	if !fits {
		return badinput.Errorf("max-configs", "the sweep has more configurations than can be counted (%s values), more than --max-configs allows (%d); narrow the lists and ranges",
			strings.Join(sizes, " × "), s.MaxConfigs)
	}
	// A seeded random sample: evenly spaced indices would alias with the
	// fastest axis and see only one of its values.
	const samples = 1000
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	est := NewEstimator()
	var seconds float64
	k, unknown := 0, false
	for range min(n, samples) {
		if opts, err := s.resolve(At(axes, rng.IntN(n))); err == nil {
			if s.command() == config.Latency {
				seconds += opts.Open.Duration.Seconds() // its schedule's length, and a little calibration
			} else {
				shape := ShapeOf(opts, s.NumCPU)
				unknown = unknown || est.Unknown(shape)
				seconds += est.EstimateSeconds(shape)
			}
			k++
		}
	}
	took := "an unknown time"
	if k > 0 && !unknown {
		took = "about " + humanDuration(seconds/float64(k)*float64(n))
	}
	raise := fmt.Sprintf("or give --max-configs %d to run them all", n)
	if n > MaxConfigs {
		raise = fmt.Sprintf("at most %d can run in one sweep", MaxConfigs)
	}
	return badinput.Errorf("max-configs", "the sweep has %d configurations (%s values), %s by the CFS model, more than --max-configs allows (%d); narrow the lists and ranges, %s",
		n, strings.Join(sizes, " × "), took, s.MaxConfigs, raise)
}

// MaxConfigs is the most --max-configs allows.
const MaxConfigs = 1_000_000

// CheckMaxConfigs checks --max-configs, before the plan is counted.
func CheckMaxConfigs(n int) error {
	if n < 1 || n > MaxConfigs {
		return badinput.Errorf("max-configs", "invalid --max-configs %d: must be between 1 and %d", n, MaxConfigs)
	}
	return nil
}

// SpecFor sorts the parameters given (by name) into the axes of command's
// Spec, those that may take a list or a range, and its fixed values; the
// caller adds the rest (MaxConfigs, Options, NumCPU).
func SpecFor(command config.Command, given map[string]string) Spec {
	s := Spec{Command: command, Axes: map[string]string{}, Fixed: map[string]string{}}
	for name, v := range given {
		if p, _ := config.Lookup(name); p.Axis {
			s.Axes[name] = v
		} else {
			s.Fixed[name] = v
		}
	}
	return s
}

// humanDuration rounds a long estimate, in seconds (a Duration overflows at
// 292 years), to what a person plans by.
func humanDuration(s float64) string {
	switch {
	case s >= 2*365*86400:
		return fmt.Sprintf("%.0f years", s/(365*86400))
	case s >= 2*86400:
		return fmt.Sprintf("%.1f days", s/86400)
	case s >= 3600:
		return fmt.Sprintf("%.1f hours", s/3600)
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// ShapeOf is what the time estimate needs of a configuration.
func ShapeOf(o plan.Options, numCPU int) Shape {
	b := o.Bench
	// A workload without a cost is first estimated at bcrypt's default,
	// until a finished run teaches the estimator (Learn).
	spec, err := decl.Lookup(b.Workload)
	return Shape{Cost: cmp.Or(b.Params.Int("cost"), 4), Batch: b.Batch, Iterations: b.Iterations, Warmup: b.Warmup, MinTime: b.MinTime,
		Workers: b.Workers, GOMAXPROCS: b.GOMAXPROCS, CPUs: o.Limits.CPUs(), NumCPU: numCPU, Alone: err == nil && spec.Alone}
}

// estimate is how long the steps that run take, in seconds, by est: a
// latency list's their --duration (and a little calibration), a sweep's
// by the CFS model; known false while a step's time is not (a command's,
// before its first run).
func estimate(steps []Step, est *Estimator, numCPU int) (seconds float64, known bool) {
	known = true
	for _, st := range steps {
		switch {
		case st.Skip != "":
		case st.Opts.Open.Duration > 0:
			seconds += st.Opts.Open.Duration.Seconds()
		default:
			s := ShapeOf(st.Opts, numCPU)
			known = known && !est.Unknown(s)
			seconds += est.EstimateSeconds(s)
		}
	}
	return seconds, known
}

// ErrAllSkipped says that no configuration of a sweep could run.
var ErrAllSkipped = errors.New("every configuration was skipped")

// Loop is how a list of configurations runs, sweep's and latency's: one
// after another by the policy of Steps, a row for each, saved after every
// configuration that ran, within a time limit.
type Loop[R any] struct {
	Runner Runner[R]
	// Save is called with the rows so far after every configuration that
	// ran, so that an interrupted list keeps what it measured; nil saves
	// nothing.
	Save func([]Outcome[R]) error
	// Skipped tells the user about a skipped configuration (stderr).
	Skipped func(c Config, why string)
	// Progress, when not nil, shows the configurations done and the time
	// left: by the CFS model, which learns from a sweep's reports (a
	// command's time only from its first run), or a latency list's
	// durations.
	Progress *Progress
	// Announce, when not nil, is told before the first configuration how
	// many will run and about how long they take (stderr, terminal or not:
	// a long list should never run without a word).
	Announce io.Writer
	NumCPU   int
	// Timeout, above 0, stops the list after so long (--timeout): the
	// configuration running then is stopped and cleaned up by its Runner,
	// and Run returns a TimeoutError. What names the list in it.
	Timeout time.Duration
	What    string
}

// announce is the line said before a list runs: its configurations and
// their time, by the CFS model for a sweep's (a latency list's last their
// --duration, and a little calibration).
func announce(what string, steps []Step, est *Estimator, numCPU int) string {
	run, skip := 0, 0
	for _, st := range steps {
		if st.Skip != "" {
			skip++
		} else {
			run++
		}
	}
	took := "about ? (estimated after the first configuration: a command's time has no model)"
	if seconds, known := estimate(steps, est, numCPU); known {
		took = "about " + humanDuration(seconds)
	}
	line := fmt.Sprintf("throttlebench: %s of %s, %s", what, words.N(run, "configuration"), took)
	if skip > 0 {
		line += fmt.Sprintf("; %d more %s skipped (limits the kernel refuses)", skip, words.Noun(float64(skip), "configuration"))
	}
	return line
}

// TimeoutError is a list stopped by its --timeout, after Done
// configurations (ran or skipped); the runner removed what it made.
type TimeoutError struct {
	What    string // "sweep", "run"
	Timeout time.Duration
	Done    int
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the %s exceeded --timeout %v and was stopped after %d configurations; nothing left behind", e.What, e.Timeout, e.Done)
}

// Run runs the steps one after another (never in parallel: they would
// disturb each other) and returns the rows, by the policy of Steps. The
// rows measured until an error are returned with it.
func (l Loop[R]) Run(ctx context.Context, steps []Step) ([]Outcome[R], error) {
	if l.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.Timeout)
		defer cancel()
	}
	// The bar is cleared when the list ends, before anything else is said.
	defer l.Progress.Done()
	est := NewEstimator()
	if l.Announce != nil && len(steps) > 1 {
		_, _ = io.WriteString(l.Announce, announce(l.What, steps, est, l.NumCPU)+"\n")
	}
	rows := make([]Outcome[R], 0, len(steps))
	_, knownAtStart := estimate(steps, est, l.NumCPU)
	err := Steps(ctx, steps,
		func(i int, st Step) error {
			if l.Progress != nil {
				left := time.Duration(-1) // not known yet
				if seconds, known := estimate(steps[i:], est, l.NumCPU); known {
					left = time.Duration(min(seconds*float64(time.Second), math.MaxInt64))
				}
				l.Progress.Update(i, left, Describe(st.Config))
			}
			res, err := l.Runner.Run(ctx, st.Opts)
			if err != nil && len(steps) > 1 && ctx.Err() == nil && !errors.Is(err, bandwidth.ErrLimitsRefused) {
				// Which of the list's configurations stopped it (a
				// refusal is a skip, which names its configuration).
				return fmt.Errorf("%s: %w", Describe(st.Config), err)
			}
			if err != nil {
				return err
			}
			// A run's report teaches the estimate the cost of an operation
			// (a latency list's steps last their --duration).
			if rep, ok := any(res).(*report.Report); ok {
				est.Learn(rep)
				// Said once where no bar shows it: the time left, now that
				// a command's first run told it.
				if !knownAtStart && l.Progress == nil && l.Announce != nil && len(steps) > 1 && i+1 < len(steps) {
					if seconds, known := estimate(steps[i+1:], est, l.NumCPU); known {
						_, _ = fmt.Fprintf(l.Announce, "throttlebench: about %s left, estimated from the first configuration\n", humanDuration(seconds))
						knownAtStart = true
					}
				}
			}
			rows = append(rows, Outcome[R]{Config: st.Config, Report: res})
			if l.Save != nil {
				return l.Save(rows)
			}
			return nil
		},
		func(st Step, why string) {
			rows = append(rows, Outcome[R]{Config: st.Config, Skipped: why})
			if l.Skipped != nil {
				// Said on a line of its own, the bar's cleared; the bar
				// comes back at the next redraw.
				l.Progress.Interrupt(func() { l.Skipped(st.Config, why) })
			}
		})
	if l.Timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
		return rows, &TimeoutError{What: l.What, Timeout: l.Timeout, Done: len(rows)}
	}
	return rows, err
}

// Steps is how every list of configurations runs, sweep's and latency's:
// one after another, run for each step that can run. A combination the
// kernel refuses (bandwidth.ErrLimitsRefused from run) is skipped with its
// reason, as are the combinations Plan found; anything else stops there:
// an interrupt, a timeout, no right to create slices, a workload that
// failed. When every step was skipped it says so (ErrAllSkipped).
func Steps(ctx context.Context, steps []Step, run func(i int, st Step) error, skipped func(st Step, why string)) error {
	ran := 0
	for i, st := range steps {
		skip := st.Skip
		if skip == "" {
			err := run(i, st)
			switch {
			case err == nil:
				ran++
				continue
			case errors.Is(err, bandwidth.ErrLimitsRefused) && ctx.Err() == nil:
				skip = err.Error()
			default:
				return err
			}
		}
		skipped(st, skip)
	}
	if ran == 0 && len(steps) > 0 {
		return fmt.Errorf("%w (%d): nothing was measured", ErrAllSkipped, len(steps))
	}
	return nil
}

// Describe names a configuration by its swept values.
func Describe(c Config) string {
	var parts []string
	for _, p := range c {
		parts = append(parts, p.Flag+"="+p.Value)
	}
	return strings.Join(parts, " ")
}

// WriteRows writes rows in one of the sweep's formats; the tables show the
// columns v chooses, and text fits v's width.
func WriteRows(w io.Writer, rows []Row, format string, v table.View) error {
	var reports []*report.Report
	for _, r := range rows {
		if r.Report != nil {
			reports = append(reports, r.Report)
		}
	}
	switch format {
	case "json":
		return report.WriteJSON(w, reports)
	case "csv":
		return WriteCSV(w, rows, v.Columns)
	case "markdown":
		return WriteMarkdown(w, rows, v.Columns)
	case render.Gobench, render.GitHubActionBenchmark, render.BMF:
		return render.WriteRuns(w, reports, format)
	}
	return WriteText(w, rows, v)
}

// Formats are the sweep's output formats; a table for people by default.
var Formats = append([]string{"json", "text", "csv", "markdown"}, render.CIFormats...)
