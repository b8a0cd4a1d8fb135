package usage

import (
	"fmt"
	"math"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
)

// SchemaVersion changes when a key of File changes meaning or goes away.
const SchemaVersion = 1

// CoarseWindow is the second view of a trace: the granularity at which
// monitoring usually shows usage, and hides the spikes a period sees.
const CoarseWindow = time.Second

// File is the JSON output of `throttlebench sample` and the input of the
// burst simulator: interval_ms and usage_cpus are all it needs. Keys name
// their unit; docs/sample.md ("The JSON output") documents each.
type File struct {
	SchemaVersion int        `json:"schema_version"`
	Cgroup        CgroupInfo `json:"cgroup"`
	StartedAt     string     `json:"started_at"`
	IntervalMs    float64    `json:"interval_ms"`
	DurationMs    float64    `json:"duration_ms"`
	Interrupted   bool       `json:"interrupted"`
	TMs           []float64  `json:"t_ms"`
	UsageCPUs     []float64  `json:"usage_cpus"`
	// PressureSomeMs and PressureFullMs are the growth of the cgroup's
	// cpu.pressure totals (some, full) over each interval, beside
	// usage_cpus: v2 only, null where the kernel keeps none (v1, PSI off,
	// the top cgroup) and full null where it keeps some alone.
	PressureSomeMs []float64 `json:"pressure_some_ms"`
	PressureFullMs []float64 `json:"pressure_full_ms"`
	LimitCPUs      *float64  `json:"limit_cpus"`
	Summary        struct {
		Interval SummaryJSON  `json:"interval"`
		Coarse   *SummaryJSON `json:"coarse"`
		// The pressure's growth over the whole sampling, in ms and as a
		// share of duration_ms; null where the series are.
		PressureSomeMs    *float64 `json:"pressure_some_ms"`
		PressureFullMs    *float64 `json:"pressure_full_ms"`
		PressureSomeShare *float64 `json:"pressure_some_share"`
		PressureFullShare *float64 `json:"pressure_full_share"`
	} `json:"summary"`
	Advice  Advice      `json:"advice"`
	Sampler SamplerJSON `json:"sampler"`
	// ThrottleEvents (--trace) is what the kernel's throttle events said of
	// the sampled window; Warnings what cannot be trusted or was not done.
	ThrottleEvents *report.ThrottleEvents `json:"throttle_events,omitempty"`
	Warnings       []report.Warning       `json:"warnings,omitempty"`
}

// CgroupInfo names the cgroup whose counter was read.
type CgroupInfo struct {
	Version int    `json:"version"`
	Path    string `json:"path"`
	Dir     string `json:"dir"`
	Counter string `json:"counter"`
}

// SummaryJSON is a Summary in CPUs.
type SummaryJSON struct {
	WindowMs           float64  `json:"window_ms"`
	N                  int      `json:"n"`
	MeanCPUs           float64  `json:"mean_cpus"`
	VarianceCPUs2      float64  `json:"variance_cpus2"`
	StddevCPUs         float64  `json:"stddev_cpus"`
	P50CPUs            float64  `json:"p50_cpus"`
	P90CPUs            float64  `json:"p90_cpus"`
	P99CPUs            float64  `json:"p99_cpus"`
	MaxCPUs            float64  `json:"max_cpus"`
	AboveLimitFraction *float64 `json:"above_limit_fraction"`
}

// Advice is the sizing drawn from the trace at the sampling interval.
type Advice struct {
	TargetFraction float64 `json:"target_fraction"`
	LimitCPUs      float64 `json:"limit_cpus"`
	BurstLimitCPUs float64 `json:"burst_limit_cpus"`
	BurstMs        float64 `json:"burst_ms"`
	// The kernel caps a burst at the quota per period: BurstCapMs is
	// BurstLimitCPUs × PeriodMs. Where BurstMs is above it, the ways out:
	// the smallest period with room for it (null where none up to 1 s
	// has), and the smallest limit at PeriodMs whose own burst fits, with
	// that burst. PeriodMs is 0 in files written before it was kept.
	PeriodMs     float64  `json:"period_ms"`
	BurstCapMs   float64  `json:"burst_cap_ms"`
	BurstFits    bool     `json:"burst_fits"`
	FitPeriodMs  *float64 `json:"fit_period_ms"`
	FitLimitCPUs *float64 `json:"fit_limit_cpus"`
	FitBurstMs   *float64 `json:"fit_burst_ms"`
}

// SamplerJSON is what sampling cost and how well it kept time.
type SamplerJSON struct {
	CPUMs       *float64 `json:"cpu_ms"`
	CPUFraction *float64 `json:"cpu_fraction"`
	LateUs      struct {
		Mean   float64 `json:"mean"`
		Stddev float64 `json:"stddev"`
		P50    float64 `json:"p50"`
		P99    float64 `json:"p99"`
		Max    float64 `json:"max"`
	} `json:"late_us"`
	Missed int `json:"missed"`
}

// Meta is what Build needs beside the recording.
type Meta struct {
	Cgroup    CgroupInfo
	StartedAt time.Time
	Limit     float64 // CPUs; 0 for none
	Target    float64 // fraction of intervals the advised limit may leave above it
	// Period is the CFS period the burst is judged at; 0 for the default.
	Period time.Duration
	// Warnings are the caller's findings about what was sampled
	// (WholeMachine); the result's warnings begin with them.
	Warnings []report.Warning
}

// Build turns a recording into the File. The burst is sized for Limit when
// one is given, else for the advised limit.
func Build(rec Recording, m Meta) File {
	t := rec.Trace
	f := File{
		SchemaVersion: SchemaVersion,
		Cgroup:        m.Cgroup,
		StartedAt:     m.StartedAt.UTC().Format(time.RFC3339Nano),
		IntervalMs:    ms(t.Interval),
		Interrupted:   rec.Interrupted,
		UsageCPUs:     t.CPUs(),
		TMs:           make([]float64, t.Len()),
	}
	if n := len(t.Samples); n > 0 {
		f.DurationMs = ms(t.Samples[n-1].At - t.Samples[0].At)
	}
	for i := range f.TMs {
		f.TMs[i] = ms(t.Samples[i+1].At - t.Samples[0].At)
	}
	f.pressure(rec.Pressure)
	if m.Limit > 0 {
		f.LimitCPUs = &m.Limit
	}
	f.Summary.Interval = summaryJSON(Summarize(t, m.Limit))
	if c := t.Coarse(t.Per(CoarseWindow)); c.Len() > 0 {
		s := summaryJSON(Summarize(c, m.Limit))
		f.Summary.Coarse = &s
	}
	f.Advice.TargetFraction = m.Target
	f.Advice.LimitCPUs = LimitFor(f.UsageCPUs, m.Target)
	f.Advice.BurstLimitCPUs = f.Advice.LimitCPUs
	if m.Limit > 0 {
		f.Advice.BurstLimitCPUs = m.Limit
	}
	f.Advice = advise(t, f.Advice, m.Period)
	f.Warnings = append(f.Warnings, m.Warnings...)
	if none := f.NoLimit(); none != "" {
		f.Warnings = append(f.Warnings, report.Warning{Kind: report.KindNoLimitToAdvise, Text: none + " (advice.limit_cpus 0 is no limit to set: docker run reads --cpus 0 as no limit at all)"})
	}

	if rec.CPUKnown {
		cpu := ms(rec.CPU)
		f.Sampler.CPUMs = &cpu
		if f.DurationMs > 0 {
			frac := cpu / f.DurationMs
			f.Sampler.CPUFraction = &frac
		}
	}
	late := make([]float64, len(rec.Late))
	for i, l := range rec.Late {
		late[i] = float64(l) / float64(time.Microsecond)
	}
	ls := stats.Summarize(late)
	f.Sampler.LateUs.Mean, f.Sampler.LateUs.Stddev = ls.Mean, ls.Stddev
	f.Sampler.LateUs.P50, f.Sampler.LateUs.P99, f.Sampler.LateUs.Max = ls.P50, ls.P99, ls.Max
	f.Sampler.Missed = rec.Missed
	return f
}

// pressure fills the pressure's series and totals from its reading at
// each sample (ps, one per sample; nil for none).
func (f *File) pressure(ps []Pressure) {
	n := len(f.TMs)
	if n == 0 || len(ps) != n+1 {
		return
	}
	f.PressureSomeMs = make([]float64, n)
	full := ps[0].FullOK
	for _, p := range ps {
		full = full && p.FullOK
	}
	if full {
		f.PressureFullMs = make([]float64, n)
	}
	for i := range n {
		f.PressureSomeMs[i] = ms(ps[i+1].Some - ps[i].Some)
		if full {
			f.PressureFullMs[i] = ms(ps[i+1].Full - ps[i].Full)
		}
	}
	total := func(d time.Duration) (*float64, *float64) {
		m := ms(d)
		if f.DurationMs <= 0 {
			return &m, nil
		}
		sh := m / f.DurationMs
		return &m, &sh
	}
	s := &f.Summary
	s.PressureSomeMs, s.PressureSomeShare = total(ps[n].Some - ps[0].Some)
	if full {
		s.PressureFullMs, s.PressureFullShare = total(ps[n].Full - ps[0].Full)
	}
}

// NoLimit says why there is no limit to advise, where the advised limit
// rounds to 0 millicores, the finest step a limit is set in: the cgroup
// used no CPU, or no more than the target's share of its intervals did.
// "" where there is a limit.
func (f File) NoLimit() string {
	if bandwidth.Millicores(f.Advice.LimitCPUs) > 0 {
		return ""
	}
	if f.Summary.Interval.MaxCPUs == 0 {
		return "no CPU used: no limit to advise"
	}
	return fmt.Sprintf("no more than %s of the intervals used any CPU (the busiest %s CPUs): no limit to advise at --target %s",
		pct(f.Advice.TargetFraction), cpus(f.Summary.Interval.MaxCPUs), pct(f.Advice.TargetFraction))
}

// advise sizes the burst above a.BurstLimitCPUs and, where the kernel would
// refuse it at period, finds both ways out.
func advise(t Trace, a Advice, period time.Duration) Advice {
	if period == 0 {
		period = config.DefaultPeriod
	}
	burst := Burst(t, a.BurstLimitCPUs)
	limitCap := BurstCap(a.BurstLimitCPUs, period)
	a.BurstMs, a.PeriodMs, a.BurstCapMs = ms(burst), ms(period), ms(limitCap)
	a.BurstFits = burst <= limitCap
	if a.BurstFits {
		return a
	}
	if p, ok := FitPeriod(burst, a.BurstLimitCPUs); ok {
		a.FitPeriodMs = ptr(ms(p))
	}
	if cpus, b, ok := FitLimit(t, a.BurstLimitCPUs, period); ok {
		a.FitLimitCPUs, a.FitBurstMs = ptr(cpus), ptr(ms(b))
	}
	return a
}

func ptr[T any](v T) *T { return &v }

func summaryJSON(s Summary) SummaryJSON {
	out := SummaryJSON{
		WindowMs: ms(s.Window), N: s.N,
		MeanCPUs: s.Mean, VarianceCPUs2: s.Variance, StddevCPUs: s.Stddev,
		P50CPUs: s.P50, P90CPUs: s.P90, P99CPUs: s.P99, MaxCPUs: s.Max,
	}
	if !math.IsNaN(s.AboveLimit) {
		a := s.AboveLimit
		out.AboveLimitFraction = &a
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Trace rebuilds the trace a File was made from, its counter starting at 0:
// enough to view a saved trace again at another granularity (the plot's 1 s
// line). The readings' instants are kept; the CPU time is rounded to 1 ns.
func (f File) Trace() Trace {
	t := Trace{Interval: time.Duration(f.IntervalMs * float64(time.Millisecond)), Samples: make([]Sample, 0, len(f.TMs)+1)}
	t.Samples = append(t.Samples, Sample{})
	var used float64 // ns, summed unrounded so that rounding does not add up
	prev := 0.0
	for i, at := range f.TMs {
		used += f.UsageCPUs[i] * (at - prev) * float64(time.Millisecond)
		prev = at
		t.Samples = append(t.Samples, Sample{At: time.Duration(at * float64(time.Millisecond)), Usage: time.Duration(math.Round(used))})
	}
	return t
}
