// Package workload holds the operations a worker repeats, one file per
// workload: each implements what its declaration in decl says (decl.Spec)
// and is listed in impls under the declared name. The drivers
// (internal/bench) decide when and how often Do runs; New builds one
// worker's instance.
//
// A workload may not know about cgroups. command.go (run -- CMD, a Spec
// marked Alone) runs someone's program once per iteration in its own
// process group, killed whole after each run; the closed loop runs it in
// a loop of its own.
package workload
