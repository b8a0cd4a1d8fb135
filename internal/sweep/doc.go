// Package sweep plans a list of configurations and runs it: it expands
// parameter lists and ranges into configurations (axis.go, at most
// config.MaxValues per axis), turns each into a step that is plain data
// (plan.Options, through Spec.Options), runs the steps one after another
// on a Runner (Loop: a configuration the machine cannot give is skipped
// with its reason; an interrupted list keeps what it measured), estimates
// how long that takes from the CFS model, and lays the rows out (Lay, the
// one layout of a list of configurations, which latency's tables share).
// It also reads saved results back as a sweep's rows (FromReports, for
// sweep --from and collect).
//
// It links no cgroup, BPF or D-Bus machinery: the runner, given to it as
// a Runner, turns a plan into a run (TestConfigurationPullsNoMachinery).
// It prints nothing of its own; the progress bar and the skipped lines go
// to writers the command hands it.
package sweep
