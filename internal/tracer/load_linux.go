//go:build linux

package tracer

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"
)

// The attach points, in the order tried: the BTF-typed tracepoint first,
// the raw one for kernels that refuse tp_btf. Same C body behind both.
const (
	AttachBTF = "tp_btf/sched_switch"
	AttachRaw = "raw_tp/sched_switch"
)

var attachOrder = []string{AttachBTF, AttachRaw}

// tracepoints are the scheduler's tracepoints the programs attach to, in
// the order of objects.progs.
var tracepoints = []string{"sched_switch", "sched_wakeup", "sched_wakeup_new"}

// objects are what one tracer loads: the programs of its attach point
// (tracepoints' order), the maps and the variables, as bpf2go typed them;
// the collection they came from (it keeps the variables' maps), and the
// spec with this kernel's rules set and every map, for the hooks.
type objects struct {
	progs [3]*ebpf.Program
	throttleMaps
	throttleVariables
	coll *ebpf.Collection
	spec *ebpf.CollectionSpec
	maps map[string]*ebpf.Map
}

func (o *objects) Close() error {
	errs := []error{o.throttleMaps.Close()}
	for _, p := range o.progs {
		errs = append(errs, p.Close())
	}
	o.coll.Close()
	return errors.Join(errs...)
}

// btfPath is where the kernel publishes its own BTF; CO-RE needs it.
const btfPath = "/sys/kernel/btf/vmlinux"

// attachAll attaches the programs (tracepoints' order) to their
// tracepoints, typed or raw as attach says; on error it closes what it
// attached.
func attachAll(attach string, progs []*ebpf.Program) ([]link.Link, error) {
	var links []link.Link
	for i, p := range progs {
		var l link.Link
		var err error
		if attach == AttachBTF {
			l, err = link.AttachTracing(link.TracingOptions{Program: p, AttachType: ebpf.AttachTraceRawTp})
		} else {
			l, err = link.AttachRawTracepoint(link.RawTracepointOptions{Name: tracepoints[i], Program: p})
		}
		if err != nil {
			for _, l := range links {
				l.Close()
			}
			return nil, fmt.Errorf("trace throttle events: attach %s to %s: %w", attach, tracepoints[i], err)
		}
		links = append(links, l)
	}
	return links, nil
}

// load loads the programs, tracing no group yet, for the first of the
// attach points the kernel accepts. It returns them with
// their maps and variables, and the attach point; errors are worded for
// the user.
func load(attaches []string) (*objects, string, error) {
	if _, err := os.Stat(btfPath); err != nil {
		return nil, "", fmt.Errorf("tracing throttle events needs the kernel's BTF (CONFIG_DEBUG_INFO_BTF), and %s is missing: %w", btfPath, err)
	}
	kernel, err := btf.LoadKernelSpec()
	if err != nil {
		return nil, "", fmt.Errorf("tracing throttle events needs the kernel's BTF: read %s: %w", btfPath, err)
	}
	if err := switchHasPrevState(kernel); err != nil {
		return nil, "", err
	}
	// Kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK; later
	// ones to the cgroup, and then this does nothing.
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, "", explain(err)
	}
	var first error
	var rest []string
	for _, a := range attaches {
		objs, err := loadOne(kernel, a)
		if err == nil {
			return objs, a, nil
		}
		if isPerm(err) {
			// Every attach point needs the same privileges: no next try.
			return nil, "", explain(err)
		}
		if first == nil {
			first = explain(err)
		} else {
			rest = append(rest, fmt.Sprintf("; %s: %v", a, err))
		}
	}
	// The first attach point's error, for the user; then the others'.
	return nil, "", fmt.Errorf("%w%s (tried %s)", first, strings.Join(rest, ""), strings.Join(attaches, ", "))
}

// loadOne loads the programs of attach point a (tracepoints' order) and
// the maps they use, with this kernel's rules (kernel: its BTF) set in the
// program's read-only data before the load, so that the verifier drops
// the code of the rules it does not get.
func loadOne(kernel *btf.Spec, a string) (*objects, error) {
	spec, err := loadThrottle()
	if err != nil {
		return nil, err
	}
	var vars throttleVariableSpecs
	if err := spec.Assign(&vars); err != nil {
		return nil, err
	}
	if err := vars.TaskBased.Set(hasMember(kernel, "task_struct", "throttled")); err != nil {
		return nil, err
	}
	if err := vars.Pidns.Set(pidNamespace()); err != nil {
		return nil, err
	}
	clock := endClock(kernel)
	for v, c := range map[*ebpf.VariableSpec]string{vars.SelfClock: "self", vars.PeltClock: "pelt", vars.TaskClock: "task"} {
		if err := v.Set(clock == c); err != nil {
			return nil, err
		}
	}
	progs := map[string][3]string{
		AttachBTF: {throttleProgSchedSwitchBtf, throttleProgSchedWakeupBtf, throttleProgSchedWakeupNewBtf},
		AttachRaw: {throttleProgSchedSwitchRaw, throttleProgSchedWakeupRaw, throttleProgSchedWakeupNewRaw},
	}[a]
	if progs[0] == "" {
		return nil, fmt.Errorf("unknown attach point %q", a)
	}
	// The attach point's programs alone: the others (the other attach
	// point's, the hooks) are loaded apart or not at all.
	base := spec.Copy()
	for name := range base.Programs {
		if name != progs[0] && name != progs[1] && name != progs[2] {
			delete(base.Programs, name)
		}
	}
	coll, err := ebpf.NewCollection(base)
	if err != nil {
		return nil, err
	}
	o := &objects{coll: coll, spec: spec, maps: maps.Clone(coll.Maps)}
	var typed struct {
		throttleMaps
		throttleVariables
	}
	if err := coll.Assign(&typed); err != nil {
		coll.Close()
		return nil, err
	}
	o.throttleMaps, o.throttleVariables = typed.throttleMaps, typed.throttleVariables
	for i, name := range progs {
		o.progs[i] = coll.DetachProgram(name)
	}
	return o, nil
}

func isPerm(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES)
}

// explain words a load error for the user: what is missing, then the
// kernel's own words.
func explain(err error) error {
	var verr *ebpf.VerifierError
	switch {
	case isPerm(err):
		return fmt.Errorf("tracing throttle events needs root or CAP_BPF and CAP_PERFMON: loading the BPF program was refused (%w)", err)
	case errors.As(err, &verr):
		return fmt.Errorf("tracing throttle events: the kernel's verifier refused the BPF program: %w", err)
	case errors.Is(err, ebpf.ErrNotSupported):
		return fmt.Errorf("tracing throttle events: this kernel does not support what the BPF program needs: %w", err)
	default:
		return fmt.Errorf("tracing throttle events: loading the BPF program failed: %w", err)
	}
}

// rootPIDNamespace is the root PID namespace's inode number
// (PROC_PID_INIT_INO), fixed by the kernel.
const rootPIDNamespace = 0xEFFFFFFC

// pidNamespace is the inode number of this process's PID namespace where
// that is not the root one (a container's), else 0: the program then
// writes each traced thread's id in it beside the kernel's.
func pidNamespace() uint32 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &st); err != nil || st.Ino == rootPIDNamespace {
		return 0
	}
	return uint32(st.Ino)
}
