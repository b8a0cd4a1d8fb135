package report

// Contention is how much the measured work waited for a CPU that other
// work held over the window: the kernel's run delay of the measured
// cgroup's threads (/proc/TID/schedstat, summed), kept apart from the time
// the quota held them (throttled), and on cgroup v2 the cgroup's CPU
// pressure. A figure taken beside other work is still a figure; this says
// what the other work cost it. Null where the threads could not be read.
type Contention struct {
	// Threads is how many of the cgroup's threads were read (each sampled
	// every 100 ms; a thread that exited between samples lost its last
	// moments' wait).
	Threads int `json:"threads"`
	// RunDelayMs is the threads' run delay summed: the time each was
	// runnable and not running, held by the quota included; OnCPUMs the
	// time they ran.
	RunDelayMs float64 `json:"run_delay_ms"`
	OnCPUMs    float64 `json:"on_cpu_ms"`
	// ThrottledMs is the cgroup's throttled time over the same window
	// (cpu.stat). WaitMs is the run delay beyond the quota's hold: each
	// thread's, between samples 100 ms apart, less the cgroup's throttled
	// time over them (which holds a thread's own hold), at most the CPU
	// time other processes ran over the window (what they can have taken):
	// the time spent waiting for a CPU someone else held, or the work's
	// own threads beyond the CPUs. It errs low where a thread both waited
	// and was held.
	ThrottledMs float64 `json:"throttled_ms"`
	WaitMs      float64 `json:"wait_ms"`
	// WaitShare is WaitMs / (WaitMs + OnCPUMs): of the time the work was
	// runnable and not held by its quota, the share it spent waiting.
	WaitShare float64 `json:"wait_share"`
	// OthersCPUs is what other processes used of the machine over the
	// window, in CPUs on average; null where not known.
	OthersCPUs *float64 `json:"others_cpus"`
	// PressureSomeMs and PressureFullMs are the change of the cgroup's
	// cpu.pressure totals (some: at least one of its threads runnable and
	// not running; full: all of them) over the window: v2 only (null on v1,
	// where the kernel keeps no pressure per cgroup, and where PSI is off;
	// full null where the kernel keeps some alone). The kernel counts the
	// time the quota held the threads there as well as their waits for
	// CPUs others held. PressureSomeShare and PressureFullShare are each
	// over the time between the two readings: the share of the window the
	// cgroup was under that pressure, 0 to 1.
	PressureSomeMs    *float64 `json:"pressure_some_ms"`
	PressureFullMs    *float64 `json:"pressure_full_ms"`
	PressureSomeShare *float64 `json:"pressure_some_share"`
	PressureFullShare *float64 `json:"pressure_full_share"`
	// Contended says the wait is a real share of the window
	// (build.DefaultThresholds.ContendedShare): its figures are measured
	// under contention, and the busy-machine warning says so.
	Contended bool `json:"contended"`
}
