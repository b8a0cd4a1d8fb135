// Package options is the one room where every command's flags, as given,
// become the plain options its engine runs with. A flag that is not a
// configuration parameter is checked here (badinput.Choice and config's
// checks) and nowhere else; cobra stays in cmd/throttlebench, which
// declares the flags and hands them to one Resolve.
//
//   - Shared: the flags run, sweep, latency and size share: one per
//     configuration parameter (config.Params), and where and how to run
//     (--cgroup, --cgroup-version, --cgroup-driver, --parent, --format,
//     --output, --timeout, --trace, --trace-out, --plot, --columns, the
//     command after --), resolved into Settings and, per configuration,
//     the plan.Options it runs with (Settings.Options).
//   - Run, Sweep, Latency, Size, Sample, Simulate: each command's own,
//     with Target (latency --target and --serve) and Emit (sweep --emit,
//     into kube.Options).
//   - The modes' table (Table, Refuse): the flags a mode of latency,
//     sweep or size refuses, and the line that says why.
//   - Placement: --cpuset and --one-per-core checked against this
//     machine's CPUs (sched_getaffinity, the parent's cpuset, sysfs),
//     read once and held as plain values.
//
// Everything is checked before anything is created: bad input is a
// badinput.Error (exit 2) and nothing is made. Nothing here writes a file
// (the command sets Settings.TraceSink) or prints. The cgroup driver is
// chosen once (systemd's answer over D-Bus is cut by the command's
// context) and its place is opened around the run and closed on every
// path (WithDriver).
package options
