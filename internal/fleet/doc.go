// Package fleet runs latency's requests on instances (latency
// --instances): the parent, in no slice, dispatches the schedule by an
// instances.Machine; each instance is a child (childproto.StartInstance)
// in a slice of its own with the run's full limits, made when the machine
// starts it and removed when it retires or fails, and on every other way
// out.
//
// It stands on the runner's core: runner.Local for the kernel, the host
// and the cgroups (its tracer shared by a list's configurations), a
// runner.Place for where the slices go, runner.RunWindow for the measured
// window (the machine's background; each instance's cpu.stat is read just
// before its slice goes and summed), and a trace window
// (runner.Local.TraceTracked, a tracewindow.Window) that tracks each slice
// as it is made and untracks it before its removal.
//
// Invariants: when Run returns, every slice it made is removed and every
// instance it started has ended; nothing here prints: what happened on the
// way (a slice that could not be removed, instances killed for lingering)
// is a warning in the result. Its test seams are Fleet's fields.
package fleet
