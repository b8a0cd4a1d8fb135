// Package workload holds the operations a worker repeats, one file per
// workload. Each declares a Spec, listed in registry: its name (--workload
// and the JSON config's "workload"), its parameters (each a flag and a key
// of the JSON config, with a default and an allowed range or its words),
// how a result names it (text, compare's key, gobench) and a constructor. The
// drivers (internal/bench) decide when and how often Do runs.
//
// config and render ask a workload's Spec for its flags, keys and names
// (Specs, Lookup). A workload may not know about cgroups. command.go
// (run -- CMD, a Spec marked Alone) runs someone's program once per
// iteration in its own process group, killed whole after each run; the
// closed loop runs it in a loop of its own.
package workload
