// Package runopts resolves the flags that run, sweep and latency share —
// one per configuration parameter (config.Params), and the settings of
// where and how to run (--cgroup, --cgroup-version, --cgroup-driver,
// --parent, --format, --output, --timeout, --trace, --trace-out, --plot,
// --columns, the command after --) — into Settings and, per
// configuration, the runner.Options it runs with (Settings.Options), the
// same for every engine.
//
// Everything is checked before anything is created: bad input is a
// badinput.Error (exit 2) and nothing is made. The cgroup driver is chosen
// once (systemd's answer over D-Bus is cut by the command's context) and
// its place is opened around the run and closed on every path
// (WithDriver). A placement this machine cannot give is refused through
// internal/topology/placement. It registers no flags (cobra stays in
// cmd/throttlebench) and prints nothing.
package runopts
