package build

import (
	"fmt"
	"time"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

// Contend is the window's contention: the measured threads' run delay
// beyond the time the quota held them, at most the CPU time others ran,
// against their time on CPU; own is the CPU time of what was measured,
// for the others' share of the machine. Nil where the threads' waits were
// not read.
//
// The run delay holds the throttled time (6.1 and 6.18 alike: a thread
// held by the quota is runnable and not running), which cpu.stat counts
// once per CPU's run queue. The tracker takes it apart thread by thread
// (Waits.Waited); where it could not, the window's throttled time is
// taken off the sum, which leaves in wait_ms the hold of every thread but
// one that waited on a throttled run queue.
func Contend(bg Background, t report.Throttling, own *time.Duration, th Thresholds) *report.Contention {
	w := bg.Waits
	if w == nil {
		return nil
	}
	c := &report.Contention{Threads: w.Threads, RunDelayMs: ms(w.RunDelay), OnCPUMs: ms(w.OnCPU)}
	if t.ThrottledMs != nil {
		c.ThrottledMs = *t.ThrottledMs
	}
	c.WaitMs = max(0, c.RunDelayMs-c.ThrottledMs)
	if w.Waited != nil {
		c.WaitMs = ms(*w.Waited)
	}
	if bg.MachineBusy != nil && own != nil && bg.Window > 0 {
		others := max(0, *bg.MachineBusy-*own)
		o := float64(others) / float64(bg.Window)
		c.OthersCPUs = &o
		// Others can have taken from the work at most the CPU time they
		// ran: the rest of its wait was for its own threads (more of them
		// runnable than CPUs) or for the quota's hold on a run queue
		// where several waited, which cpu.stat counts once. On the quiet
		// machine, 4 workers of on-off bursts on 2 CPUs waited 56% of
		// their runnable time (the median of the 76 windows of the
		// README's size example) with others using 0.02 CPUs.
		c.WaitMs = min(c.WaitMs, ms(others))
	}
	if c.WaitMs+c.OnCPUMs > 0 {
		c.WaitShare = c.WaitMs / (c.WaitMs + c.OnCPUMs)
	}
	c.PressureSomeMs, c.PressureSomeShare = pressure(w.PressureSome, w.PressureWindow)
	c.PressureFullMs, c.PressureFullShare = pressure(w.PressureFull, w.PressureWindow)
	c.Contended = c.WaitShare >= th.ContendedShare && c.WaitMs >= ms(th.ContendedMin)
	return c
}

// pressure is a cpu.pressure total's growth d in ms and as a share of the
// window it grew over; nil, nil where it was not read. The share is nil
// too where the window is not known.
func pressure(d *time.Duration, window time.Duration) (msp, share *float64) {
	if d == nil {
		return nil, nil
	}
	m := ms(*d)
	if window <= 0 {
		return &m, nil
	}
	sh := float64(*d) / float64(window)
	return &m, &sh
}

// busyMachine is the busy-machine warning, what may come out high named
// by what: from the measured wait where it was read (c), else from the
// machine's other load (others, over bg.Window).
func busyMachine(c *report.Contention, bg Background, others time.Duration, th Thresholds, what string) (string, bool) {
	if c != nil {
		if !c.Contended {
			return "", false
		}
		msg := fmt.Sprintf("busy machine: the work waited %s for CPUs that others held, %.0f%% of the time it was runnable and not held by its quota",
			table.MsSpaced(c.WaitMs), 100*c.WaitShare)
		if c.OthersCPUs != nil {
			msg += fmt.Sprintf(" (other processes used %.2f CPUs on average)", *c.OthersCPUs)
		}
		return msg + ": " + what + " may come out high; the contention block says how much", true
	}
	// Judged by the least the counters allow, so that their rounding
	// cannot raise the warning on its own.
	if bg.MachineBusy == nil || bg.Window <= 0 || float64(others-bg.BusyResolution) < th.BusyCPUs*float64(bg.Window) {
		return "", false
	}
	return fmt.Sprintf("busy machine: other processes kept %.2f CPUs busy on average during the measurement, competing with the workload for CPU time: "+
		"%s may come out high; measure on a quiet machine", float64(others)/float64(bg.Window), what), true
}
