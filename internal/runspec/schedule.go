package runspec

import (
	"math"
	"math/rand/v2"
	"time"
)

// The arrival processes of an open-loop run (OpenLoop.Arrivals).
const (
	ArrivalsFixed   = "fixed"   // one request every 1/Rate
	ArrivalsPoisson = "poisson" // exponential gaps of mean 1/Rate
	ArrivalsOnOff   = "onoff"   // a cycle's requests spread over On, none during Off
	ArrivalsOnce    = "once"    // Count requests, all at the start
)

// ArrivalKinds lists the values OpenLoop.Arrivals takes, for the config
// layer's check and help.
var ArrivalKinds = []string{ArrivalsFixed, ArrivalsPoisson, ArrivalsOnOff, ArrivalsOnce}

// MaxRequests bounds a schedule's length (8 bytes each): Schedule stops
// there, so the config layer should refuse Rate × Duration above it rather
// than let a run end early.
const MaxRequests = 10_000_000

// pcgStream is the PCG's second seed word: fixed, so that Seed alone
// decides the schedule.
const pcgStream = 0x7468726f74746c65 // "throttle"

// Schedule is o's arrival offsets from the run's start, ascending, at most
// MaxRequests of them, all before o.Duration. It depends on nothing but o,
// so two configurations with the same Rate, Arrivals, On, Off, Duration and
// Seed see the same arrivals. A Rate that is not a positive finite number
// gives none; an unknown Arrivals is read as fixed. ArrivalsOnce is Count
// arrivals at 0, whatever the rate and duration.
func Schedule(o OpenLoop) []time.Duration {
	if o.Arrivals == ArrivalsOnce {
		return make([]time.Duration, min(max(o.Count, 0), MaxRequests))
	}
	if !(o.Rate > 0) || math.IsInf(o.Rate, 0) || o.Duration <= 0 {
		return nil
	}
	switch o.Arrivals {
	case ArrivalsPoisson:
		return poissonSchedule(o.Rate, o.Duration, o.Seed)
	case ArrivalsOnOff:
		if cycle := o.On + max(o.Off, 0); o.On >= 0 && cycle > 0 {
			return onOffSchedule(o.Rate, o.On, cycle, o.Duration)
		}
	}
	return fixedSchedule(o.Rate, o.Duration)
}

// nanos is a time in seconds as a Duration, rounded to the nanosecond.
func nanos(seconds float64) time.Duration {
	return time.Duration(math.Round(seconds * 1e9))
}

// fixedSchedule computes each offset from its index rather than adding a
// rounded gap, so rounding does not accumulate over a long run.
func fixedSchedule(rate float64, d time.Duration) []time.Duration {
	var s []time.Duration
	for i := 0; i < MaxRequests; i++ {
		at := nanos(float64(i) / rate)
		if at >= d {
			break
		}
		s = append(s, at)
	}
	return s
}

func poissonSchedule(rate float64, d time.Duration, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, pcgStream))
	var s []time.Duration
	t := 0.0 // seconds, summed unrounded for the same reason as fixedSchedule
	for len(s) < MaxRequests {
		t += rng.ExpFloat64() / rate
		at := nanos(t)
		if at >= d {
			break
		}
		s = append(s, at)
	}
	return s
}

// onOffSchedule gives cycle c the requests round((c+1)·p) − round(c·p),
// p = rate × cycle, so a fractional p (a request every few cycles) keeps the
// mean rate without drift. It walks requests, not cycles: with a tiny rate
// and a short cycle, most cycles are empty and there may be billions.
func onOffSchedule(rate float64, on, cycle, d time.Duration) []time.Duration {
	p := rate * cycle.Seconds()
	// upTo(c) is how many requests cycles [0, c) hold.
	upTo := func(c int64) int64 { return int64(math.Floor(float64(c)*p + 0.5)) }
	lastCycle := int64(d / cycle) // the last one that starts before d
	var s []time.Duration
	for k := int64(0); k < MaxRequests; k++ {
		// The cycle holding request k: upTo(c) ≤ k < upTo(c+1), that is
		// c = ⌈(k+½)/p⌉ − 1; floating point may put it one off either way.
		est := math.Ceil((float64(k)+0.5)/p) - 1
		if est > float64(lastCycle)+1 {
			break
		}
		c := max(int64(est), 0)
		for c > 0 && upTo(c) > k {
			c--
		}
		for upTo(c+1) <= k {
			c++
		}
		n := upTo(c+1) - upTo(c)
		j := k - upTo(c)
		at := time.Duration(c)*cycle + time.Duration(float64(on)*float64(j)/float64(n))
		if at >= d {
			break
		}
		s = append(s, at)
	}
	return s
}
