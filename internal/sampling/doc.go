// Package sampling is the sample command's engine: a cgroup's usage
// counter read every --interval on a timerfd clock (usage.Sampler), the
// kernel's throttle events traced beside it where asked (--trace: the
// tracer on the cgroup's place in the cpu hierarchy, found through
// internal/cgroupref), and what was collected built into a usage.File;
// and sample -- CMD, the command started in a slice of its own with no
// limit and that slice sampled until it exits.
//
// What was collected is always returned, also when sampling was cut short
// (a trace cut short is still a trace); the error the command ends with
// once it has written the file is returned apart (Run's after). It prints
// nothing: the notice before an open-ended sampling and the command's
// warnings are returned for the command to say.
package sampling
