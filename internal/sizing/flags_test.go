package sizing

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/modes"
	"github.com/throttlebench/throttlebench/internal/runopts"
	"github.com/throttlebench/throttlebench/internal/size"
)

// resolveFlags is Flags.Resolve of size's own flags (o) and the shared
// ones given by name, with its error: no cobra, no kernel.
func resolveFlags(o Flags, params map[string]string, args ...string) (Plan, error) {
	f := runopts.New()
	f.Mode, f.Version, f.Driver, f.Format = "auto", "auto", "cgroupfs", "json"
	for k, v := range params {
		f.Values[k] = &v
	}
	o.Run = f
	if o.Step == "" {
		o.Step = "0.05"
	}
	if o.Confidence == 0 {
		o.Confidence = size.DefaultConfidence
	}
	if o.Busy == "" {
		o.Busy = "refuse"
	}
	changed := func(name string) bool { _, ok := params[name]; return ok }
	dash := -1
	if len(args) > 0 {
		dash = 0
	}
	return o.Resolve(context.Background(), modes.Given{Changed: changed, Value: f.Value}, args, dash, io.Discard)
}

// --burst is read as latency reads it: lists and ranges, each value
// checked by config's burst.
func TestBurstAsLatencyReadsIt(t *testing.T) {
	for spec, want := range map[string][]time.Duration{
		"":               {0},
		"0":              {0},
		"0,20ms,50ms":    {0, 20 * time.Millisecond, 50 * time.Millisecond},
		"0:20ms:10ms":    {0, 10 * time.Millisecond, 20 * time.Millisecond},
		"50ms,0,50ms":    {0, 50 * time.Millisecond},
		"5ms:20ms:*2":    {5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond},
		"1.5ms, 2500us ": {1500 * time.Microsecond, 2500 * time.Microsecond},
	} {
		p, err := resolveFlags(Flags{SLO: "p99<=50ms", CPUsMax: "1"}, map[string]string{"rate": "100", "burst": spec})
		require.NoError(t, err, spec)
		assert.Equal(t, want, p.Bursts, spec)
	}
}

// Bad input of size's own flags is refused in Resolve, before the
// unlimited arm runs: one badinput.Error line naming the flag.
func TestResolveRefusesBeforeMeasuring(t *testing.T) {
	open := map[string]string{"rate": "100"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{"rate": "100"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		o      Flags
		params map[string]string
		flag   string
		want   string
	}{
		{"bare burst", Flags{SLO: "p99<=50ms"}, with("burst", "20"), "burst", `invalid --burst "20": a duration needs a unit: 20ms?`},
		{"burst in a range", Flags{SLO: "p99<=50ms"}, with("burst", "0:20:5ms"), "burst", `invalid --burst "0:20:5ms": 20 needs a unit: 20ms?`},
		{"burst not a duration", Flags{SLO: "p99<=50ms"}, with("burst", "0,fast"), "burst", `invalid --burst "0,fast": "fast" is not a duration such as 10ms`},
		{"burst negative", Flags{SLO: "p99<=50ms"}, with("burst", "-5ms"), "burst", `invalid --burst "-5ms": must not be negative`},
		{"burst above every quota", Flags{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "0.4"}, with("burst", "0,50ms"), "burst",
			`invalid --burst "0,50ms": 50ms is above the quota of every level, at most 40ms per 100ms period (--cpus-max 0.4); the kernel takes a burst up to the quota`},
		{"burst above the machine", Flags{SLO: "p99<=50ms"}, with("burst", "2000s", "period", "1s"), "burst", "is above the quota of every level"},
		{"step wider than the range", Flags{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "2"}, open, "step", `invalid --step "2": wider than the range from 0.2 to 1 CPUs (0.8)`},
		{"step 150%", Flags{SLO: "p99<=50ms", Step: "150%"}, open, "step", "at most 100"},
		{"min above max", Flags{SLO: "p99<=50ms", CPUsMin: "800m", CPUsMax: "400m"}, open, "cpus-min", "invalid --cpus-min 0.8: not below --cpus-max 0.4"},
		{"min above the machine", Flags{SLO: "p99<=50ms", CPUsMin: "1024"}, open, "cpus-min", "invalid --cpus-min 1024: not below the default --cpus-max"},
		{"max at the kernel's least", Flags{SLO: "p99<=50ms", CPUsMax: "10m"}, open, "cpus-max", "invalid --cpus-max 0.01: not above the default --cpus-min"},
		{"bare open window", Flags{SLO: "p99<=50ms", Window: "1500"}, open, "window", `invalid --window "1500": a duration needs a unit: 1500ms?`},
		{"bare work", Flags{SLO: "p99<=50ms"}, map[string]string{"work": "4"}, "work", `invalid --work "4": a duration needs a unit: 4ms?`},
		{"bare period", Flags{SLO: "p99<=50ms"}, with("period", "100"), "period", `invalid --period "100": a duration needs a unit: 100ms?`},
		{"bare bound", Flags{SLO: "p99<=50"}, open, "slo", `invalid --slo "p99<=50": a bound needs a unit: 50ms?`},
	} {
		_, err := resolveFlags(tc.o, tc.params)
		var ce *badinput.Error
		require.ErrorAs(t, err, &ce, tc.name)
		assert.Equal(t, tc.flag, ce.Param, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

// What is taken: CPUs as Kubernetes writes them, a bare --window on the
// closed loop (its iterations), spaces in --slo.
func TestResolveTakes(t *testing.T) {
	p, err := resolveFlags(Flags{SLO: "p99 <= 50 ms", CPUsMin: "500m", CPUsMax: "1500m", Step: "250m"}, map[string]string{"rate": "100"})
	require.NoError(t, err)
	assert.Equal(t, size.Grid{Min: 0.5, Max: 1.5, Step: size.Step{CPUs: 0.25}, Period: 100 * time.Millisecond}, p.Grid)
	assert.Equal(t, "p99<=50ms", p.SLO.String())

	p, err = resolveFlags(Flags{SLO: "mean<1.2x", Window: "15"}, nil, "true")
	require.NoError(t, err)
	assert.Equal(t, "15 iterations", p.Window)
	assert.True(t, p.SLO.Strict)
}
