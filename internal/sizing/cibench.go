package sizing

import (
	"io"
	"slices"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
)

// writeCI writes r in one of render.CIFormats: the recommendation, in
// CPUs. Without one (none, undecided, or no limit) the Go benchmark
// format has its configuration lines alone, the JSON formats nothing;
// LeftOut says why.
func writeCI(w io.Writer, r Result, format string) error {
	if format == render.Gobench {
		return render.WriteBenches(w, []render.Bench{r.bench()})
	}
	return render.WriteMetrics(w, r.metrics(), format)
}

// LeftOut says why format holds no figure of r, a line for stderr; none
// where it holds the recommendation, or is no format CI tools read.
func (r Result) LeftOut(format string) []report.Warning {
	if !isCI(format) || r.recommendedCPUs() != nil {
		return nil
	}
	return []report.Warning{{Kind: report.KindNoBenchmark, Text: "--format " + format + " holds no benchmark: its figure is the recommendation in CPUs, and there is none (" + r.Headline() + ")"}}
}

func isCI(format string) bool { return slices.Contains(render.CIFormats, format) }

func (r Result) recommendedCPUs() *float64 {
	if r.Recommendation == nil {
		return nil
	}
	return r.Recommendation.CPUs
}

// name is the question size answered, which stays the same from one run
// of it to the next: the target, the loop, the window and the period.
// Spaces become "_" ("20 iterations"): a name is one field.
func (r Result) name() string {
	return strings.Join(strings.Fields("BenchmarkSize/slo="+r.SLO+"/loop="+r.Loop+"/window="+r.Window+"/period="+us(r.PeriodUs)), "_")
}

// config are r's configuration lines. The quota is what size searched,
// and so is no configuration: a recommendation's own quota and burst
// would set two results apart that benchstat must compare (it groups by
// every configuration line), so they say the question: "searched", and
// the bursts asked. GOMAXPROCS is the unlimited arm's, which no level
// changes.
func (r Result) config() []render.ConfigLine {
	var bursts []string
	for _, p := range r.Pairs {
		bursts = append(bursts, us(p.BurstUs))
	}
	gomaxprocs := 0
	if len(r.Arms) > 0 && len(r.Arms[0].Windows) > 0 {
		gomaxprocs = r.Arms[0].Windows[0].GOMAXPROCS
	}
	return render.LimitConfig(r.Kernel, r.CgroupVersion, "searched", us(r.PeriodUs), strings.Join(bursts, ","), gomaxprocs)
}

func (r Result) bench() render.Bench {
	b := render.Bench{Config: r.config(), Name: r.name()}
	if cpus := r.recommendedCPUs(); cpus != nil {
		b.Lines = []render.Line{{N: 1, Values: []render.Value{{Value: *cpus, Unit: "cpus", Prec: -1}}}}
	}
	return b
}

// metrics are the recommendation with the search's bracket as its
// interval: the level below it, which failed, and itself, which passed;
// the smallest passing level lies in between.
func (r Result) metrics() []render.Metric {
	cpus := r.recommendedCPUs()
	if cpus == nil {
		return nil
	}
	m := render.Metric{Name: strings.TrimPrefix(r.name(), "Benchmark"), Measure: "recommendation_cpus", Unit: "cpus", Value: *cpus,
		Extra: render.Extra(r.config())}
	if f := r.Bracket.FailCPUs; f != nil && *f <= *cpus {
		lo, hi := *f, *cpus
		m.Lower, m.Upper = &lo, &hi
	}
	return []render.Metric{m}
}

func us(v int64) string { return (time.Duration(v) * time.Microsecond).String() }
