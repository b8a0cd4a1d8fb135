//go:build linux

package tracer

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// The throttle hooks' kinds (Tracer.Hooks): the kernel's throttle_cfs_rq
// and unthrottle_cfs_rq hooked at their exits through BPF trampolines
// (fexit: HooksFentry, the kind fentry and fexit share), or at their
// entries by kprobes, or not at all (this kernel allows neither: holds end
// where the queues' clocks or the group's next run say).
const (
	HooksFentry = "fentry"
	HooksKprobe = "kprobe"
	HooksNone   = ""
)

// hookFuncs are the kernel functions hooked, in the order of hookSet's
// programs.
var hookFuncs = [2]string{"throttle_cfs_rq", "unthrottle_cfs_rq"}

// hookSet is one kind of hooks' programs, as bpf2go names them.
type hookSet struct {
	kind  string
	progs [2]string
}

var hookOrder = []hookSet{
	{HooksFentry, [2]string{throttleProgThrottleFexit, throttleProgUnthrottleFexit}},
	{HooksKprobe, [2]string{throttleProgThrottleKprobe, throttleProgUnthrottleKprobe}},
}

// hooks are the loaded and attached throttle hooks; the zero value is
// none.
type hooks struct {
	kind  string
	progs []*ebpf.Program
	links []link.Link
	// partial is why throttle_cfs_rq's hook is missing where
	// unthrottle_cfs_rq's attached; nil where both did.
	partial error
}

// attachHooks loads and attaches the first kind of hooks (hookOrder) this
// kernel takes, sharing maps (the tracepoints' programs', and their
// variables) with the objects loaded from spec; none where it takes
// neither, with each kind's error. The hooks write nothing until the
// program's hooked is set.
func attachHooks(spec *ebpf.CollectionSpec, maps map[string]*ebpf.Map) (hooks, error) {
	var errs []error
	for _, set := range hookOrder {
		h, err := attachHookSet(spec, maps, set)
		if err == nil {
			return h, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", set.kind, err))
	}
	return hooks{}, errors.Join(errs...)
}

// attachHookSet loads and attaches one kind of hooks: unthrottle_cfs_rq's,
// which a hold's end needs, or none; then throttle_cfs_rq's, where the
// kernel has it (a static function, which a kernel may inline): without
// it a thread still waiting when its queue throttles again is not held
// again (h.partial says why).
func attachHookSet(spec *ebpf.CollectionSpec, maps map[string]*ebpf.Map, set hookSet) (hooks, error) {
	h := hooks{kind: set.kind}
	for _, i := range []int{1, 0} {
		p, l, err := attachHook(spec, maps, set, i)
		if err != nil {
			if i == 1 {
				return hooks{}, err
			}
			h.partial = err
			break
		}
		h.progs, h.links = append(h.progs, p), append(h.links, l)
	}
	return h, nil
}

// attachHook loads and attaches set's program for hookFuncs[i].
func attachHook(spec *ebpf.CollectionSpec, maps map[string]*ebpf.Map, set hookSet, i int) (*ebpf.Program, link.Link, error) {
	name := set.progs[i]
	one := spec.Copy()
	for n := range one.Programs {
		if n != name {
			delete(one.Programs, n)
		}
	}
	// A replacement for every map, so that the hook's collection makes
	// none of its own.
	coll, err := ebpf.NewCollectionWithOptions(one, ebpf.CollectionOptions{MapReplacements: maps})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", hookFuncs[i], err)
	}
	defer coll.Close()
	p := coll.DetachProgram(name)
	var l link.Link
	if set.kind == HooksFentry {
		l, err = link.AttachTracing(link.TracingOptions{Program: p})
	} else {
		l, err = link.Kprobe(hookFuncs[i], p, nil)
	}
	if err != nil {
		p.Close()
		return nil, nil, fmt.Errorf("attach to %s: %w", hookFuncs[i], err)
	}
	return p, l, nil
}

// close detaches and closes the hooks.
func (h *hooks) close() error {
	var errs []error
	for _, l := range h.links {
		errs = append(errs, l.Close())
	}
	for _, p := range h.progs {
		errs = append(errs, p.Close())
	}
	h.links, h.progs = nil, nil
	return errors.Join(errs...)
}
