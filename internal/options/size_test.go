package options

import (
	"context"
	"io"
	"maps"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/sizing"
)

// resolveFlags is Size.Resolve of size's own flags (o) and the shared
// ones given by name, with its error: no cobra, no kernel.
func resolveFlags(o Size, params map[string]string, args ...string) (sizing.Plan, error) {
	f := NewShared()
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
	_, p, err := o.Resolve(context.Background(), Given{Changed: changed, Value: f.Value}, args, dash, io.Discard)
	return p, err
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
		p, err := resolveFlags(Size{SLO: "p99<=50ms", CPUsMax: "1"}, map[string]string{"rate": "100", "burst": spec})
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
		o      Size
		params map[string]string
		flag   string
		want   string
	}{
		{"bare burst", Size{SLO: "p99<=50ms"}, with("burst", "20"), "burst", `invalid --burst "20": a duration needs a unit: 20ms?`},
		{"burst in a range", Size{SLO: "p99<=50ms"}, with("burst", "0:20:5ms"), "burst", `invalid --burst "0:20:5ms": 20 needs a unit: 20ms?`},
		{"burst not a duration", Size{SLO: "p99<=50ms"}, with("burst", "0,fast"), "burst", `invalid --burst "0,fast": "fast" is not a duration such as 10ms`},
		{"burst negative", Size{SLO: "p99<=50ms"}, with("burst", "-5ms"), "burst", `invalid --burst "-5ms": must not be negative`},
		{"burst above every quota", Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "0.4"}, with("burst", "0,50ms"), "burst",
			`invalid --burst "0,50ms": 50ms is above the quota of every level, at most 40ms per 100ms period (--cpus-max 0.4); the kernel takes a burst up to the quota`},
		{"burst above the machine", Size{SLO: "p99<=50ms"}, with("burst", "2000s", "period", "1s"), "burst", "is above the quota of every level"},
		{"step wider than the range", Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "2"}, open, "step", `invalid --step "2": wider than the range from 0.2 to 1 CPUs (0.8)`},
		{"step 150%", Size{SLO: "p99<=50ms", Step: "150%"}, open, "step", "at most 100"},
		{"min above max", Size{SLO: "p99<=50ms", CPUsMin: "800m", CPUsMax: "400m"}, open, "cpus-min", "invalid --cpus-min 0.8: not below --cpus-max 0.4"},
		{"min above the machine", Size{SLO: "p99<=50ms", CPUsMin: "1024"}, open, "cpus-min", "invalid --cpus-min 1024: not below the default --cpus-max"},
		{"max at the kernel's least", Size{SLO: "p99<=50ms", CPUsMax: "10m"}, open, "cpus-max", "invalid --cpus-max 0.01: not above the default --cpus-min"},
		{"bare open window", Size{SLO: "p99<=50ms", Window: "1500"}, open, "window", `invalid --window "1500": a duration needs a unit: 1500ms?`},
		{"bare work", Size{SLO: "p99<=50ms"}, map[string]string{"work": "4"}, "work", `invalid --work "4": a duration needs a unit: 4ms?`},
		{"bare period", Size{SLO: "p99<=50ms"}, with("period", "100"), "period", `invalid --period "100": a duration needs a unit: 100ms?`},
		{"bare bound", Size{SLO: "p99<=50"}, open, "slo", `invalid --slo "p99<=50": a bound needs a unit: 50ms?`},
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
	p, err := resolveFlags(Size{SLO: "p99 <= 50 ms", CPUsMin: "500m", CPUsMax: "1500m", Step: "250m"}, map[string]string{"rate": "100"})
	require.NoError(t, err)
	assert.Equal(t, size.Grid{Min: 0.5, Max: 1.5, Step: size.Step{CPUs: 0.25}, Period: 100 * time.Millisecond}, p.Grid)
	assert.Equal(t, "p99<=50ms", p.SLO.String())

	p, err = resolveFlags(Size{SLO: "mean<1.2x", Window: "15"}, nil, "true")
	require.NoError(t, err)
	assert.Equal(t, "15 iterations", p.Window)
	assert.True(t, p.SLO.Strict)
}

// A level's run is the base resolved once with its limits set, and is
// what latency and run make of the same flags with --cpus and --burst
// given: the shortcut never drifts from the configuration's own resolve.
func TestSizeLevelIsTheFlagsResolved(t *testing.T) {
	for _, c := range []struct {
		params map[string]string
		cmd    config.Command
		window string // the parameter --window stands for, at its default
	}{
		{map[string]string{"rate": "100", "period": "50ms", "workers": "2"}, config.Latency, "duration"},
		{map[string]string{"batch": "10", "gomaxprocs": "ceil", "workers": "3"}, config.Batch, "iterations"},
	} {
		p, err := resolveFlags(Size{SLO: "p99<=50ms"}, c.params)
		require.NoError(t, err, c.params)
		for _, cpus := range []float64{0.2, 0.35, 1.5} {
			for _, burst := range []time.Duration{0, 5 * time.Millisecond} {
				got, err := p.Options(cpus, burst)
				require.NoError(t, err)
				given := maps.Clone(c.params)
				given[c.window] = map[string]string{"duration": SizeOpenWindow.String(), "iterations": strconv.Itoa(SizeClosedWindow)}[c.window]
				given["cpus"] = strconv.FormatFloat(cpus, 'f', -1, 64)
				if burst > 0 {
					given["burst"] = burst.String()
				}
				cfg, err := config.ResolveFor(c.cmd, given)
				require.NoError(t, err, given)
				want, err := Settings{Mode: p.Base.Mode, Version: p.Base.Version}.Options(cfg)
				require.NoError(t, err)
				want.Open.NoFloor = true
				assert.Equal(t, want, got, "%v at %v CPUs, burst %v", c.params, cpus, burst)
			}
		}
		unl, err := p.Options(math.Inf(1), 0)
		require.NoError(t, err)
		assert.Equal(t, p.Base, unl)
		assert.False(t, unl.Open.NoFloor, "the unlimited arm measures the harness's floor")
		_, err = p.Options(0.001, 0)
		assert.Error(t, err, "a quota below the kernel's least is the engine's error")
	}
}
