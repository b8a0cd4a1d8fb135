// Package decl declares the workloads as plain data: each a Spec, listed
// in registry: its name (--workload and the JSON config's "workload"),
// its parameters (each a flag and a key of the JSON config, with a kind, a
// default and an allowed range or its words), Alone and Compute, and how a
// result names it (text, compare's key, gobench). Their implementations
// are internal/bench/workload's, attached there by name.
//
// config, render, compare and the plans ask a workload's Spec for its
// flags, keys and names (Specs, Lookup, Names); decl imports nothing that
// touches the kernel (no golang.org/x/sys/unix, no engine), so neither do
// they through it. Its name is not spec: the callers' locals are spec
// (spec, err := decl.Lookup(name)).
package decl
