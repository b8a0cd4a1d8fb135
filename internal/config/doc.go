// Package config is the one configuration of a run: what the workload does,
// how often, on how many workers, under which CFS limits. The parameters'
// flags, the sweep's axes, compare's match keys and the labels of tables
// and plots derive from the parameters declared here, so a new parameter (a
// workload's own knob, a request rate) is added once, in Params. A
// parameter that is a match key names it by its JSON name (Param.Key);
// internal/compare reads it back from a result (its keys.go), so a new key
// needs a reader there too, or compare panics as it loads.
//
// Values arrive as text (a flag, one value of a sweep axis) and are checked
// here, in one place, with errors that name the parameter, the value and
// what is allowed.
//
// badinput.Error is the one error of bad input (badinput.Errorf): whichever
// package resolves a command's options uses it, and the command exits 2
// with its one line. An Error marked Combination is bad only in how values
// combine: what a sweep skips. check.go holds the checks of flags that are
// not parameters that several commands share (Timeout, CgroupVersion,
// InCurrent, Columns); where an output may go is internal/options' check
// (options.Output), which asks the file system. Config.ClosedLoop and Config.OpenLoop are what the drivers run
// with.
//
// A file a job: config.go the type and its conversions, params.go the
// parameters (Params, Lookup, Axes), resolve.go Resolve and ResolveFor
// with their checks of how values combine, parse.go one value's parsers;
// openloop.go and instances.go latency's part of each.
//
// It may not touch the system.
package config
