package usage

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pressures reads these pressures one after another, then fails.
func pressures(ps ...Pressure) func() (Pressure, bool, error) {
	return func() (Pressure, bool, error) {
		if len(ps) == 0 {
			return Pressure{}, false, errors.New("gone")
		}
		p := ps[0]
		ps = ps[1:]
		return p, true, nil
	}
}

func pr(someMs, fullMs int) Pressure {
	return Pressure{Some: time.Duration(someMs) * time.Millisecond, Full: time.Duration(fullMs) * time.Millisecond, FullOK: true}
}

// The pressure is read beside each reading of the counter, one per sample;
// a read that fails, a cgroup that keeps none, or a total that goes down
// leaves the whole series out and never stops the usage's.
func TestSamplerReadsPressure(t *testing.T) {
	run := func(p func() (Pressure, bool, error)) Recording {
		cg, file := counterFile(t)
		clk := &scripted{t: t, file: file, steps: []step{{0, 0, false}, {0, 50 * time.Millisecond, false}, {0, 100 * time.Millisecond, false}}}
		rec := Sampler{Counter: cg, Clock: clk, Interval: ms100, Duration: 200 * time.Millisecond, Pressure: p}.Run(context.Background())
		require.NoError(t, rec.Err)
		require.Equal(t, 2, rec.Trace.Len())
		return rec
	}
	rec := run(pressures(pr(1000, 100), pr(1040, 110), pr(1100, 130)))
	assert.Equal(t, []Pressure{pr(1000, 100), pr(1040, 110), pr(1100, 130)}, rec.Pressure)

	assert.Nil(t, run(pressures(pr(1000, 100), pr(1040, 110))).Pressure, "the third read fails")
	assert.Nil(t, run(pressures(pr(1000, 100), pr(900, 110), pr(1100, 130))).Pressure, "some went down: the cgroup made anew")
	assert.Nil(t, run(func() (Pressure, bool, error) { return Pressure{}, false, nil }).Pressure, "v1, PSI off")
	assert.Nil(t, run(nil).Pressure)
}

// The file's series are each interval's growth, aligned with t_ms; the
// summary's totals are the growth over the whole sampling, as a share of
// it too; text and CSV say them. Full is left out where the kernel keeps
// some alone; everything where no pressure was read.
func TestFilePressure(t *testing.T) {
	rec := Recording{Trace: trace(50, 50, 50, 50), Pressure: []Pressure{pr(1000, 100), pr(1040, 110), pr(1100, 130), pr(1100, 130), pr(1180, 200)}}
	f := Build(rec, Meta{Target: 0.01})
	assert.Equal(t, []float64{40, 60, 0, 80}, f.PressureSomeMs)
	assert.Equal(t, []float64{10, 20, 0, 70}, f.PressureFullMs)
	require.NotNil(t, f.Summary.PressureSomeMs)
	require.NotNil(t, f.Summary.PressureFullShare)
	assert.InDelta(t, 180, *f.Summary.PressureSomeMs, 1e-9)
	assert.InDelta(t, 0.45, *f.Summary.PressureSomeShare, 1e-9, "180 ms of 400")
	assert.InDelta(t, 100, *f.Summary.PressureFullMs, 1e-9)
	assert.InDelta(t, 0.25, *f.Summary.PressureFullShare, 1e-9)

	var text bytes.Buffer
	require.NoError(t, Write(&text, f, "text"))
	assert.Contains(t, text.String(), "\ncpu.pressure: some 180.0ms (45.0%), at most 80.0% of one interval; full 100.0ms (25.0%), at most 70.0% of one interval\n")
	var csv bytes.Buffer
	require.NoError(t, Write(&csv, f, "csv"))
	assert.Equal(t, "t_ms,span_ms,usage_cpus,pressure_some_ms,pressure_full_ms", strings.SplitN(csv.String(), "\n", 2)[0])
	assert.Contains(t, csv.String(), "\n400,100,0.5,80,70\n")

	someOnly := rec
	someOnly.Pressure = []Pressure{{Some: 0}, {Some: time.Millisecond}, {Some: time.Millisecond}, {Some: time.Millisecond}, {Some: 2 * time.Millisecond}}
	f = Build(someOnly, Meta{Target: 0.01})
	assert.Equal(t, []float64{1, 0, 0, 1}, f.PressureSomeMs)
	assert.Nil(t, f.PressureFullMs)
	assert.Nil(t, f.Summary.PressureFullMs)
	text.Reset()
	require.NoError(t, Write(&text, f, "text"))
	assert.Contains(t, text.String(), "; full not kept\n")

	none := rec
	none.Pressure = nil
	f = Build(none, Meta{Target: 0.01})
	assert.Nil(t, f.PressureSomeMs)
	assert.Nil(t, f.Summary.PressureSomeMs)
	text.Reset()
	require.NoError(t, Write(&text, f, "text"))
	assert.NotContains(t, text.String(), "cpu.pressure")
	csv.Reset()
	require.NoError(t, Write(&csv, f, "csv"))
	assert.Equal(t, "t_ms,span_ms,usage_cpus", strings.SplitN(csv.String(), "\n", 2)[0])
	var js bytes.Buffer
	require.NoError(t, Write(&js, f, "json"))
	assert.Contains(t, js.String(), `"pressure_some_ms": null`, "v1: null, as the report's")
}
