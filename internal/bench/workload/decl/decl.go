package decl

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
)

// ErrBadConfig is wrapped by every error about a workload's name or
// parameters, so that the child protocol can tell a configuration that
// cannot run from a workload that failed while running.
var ErrBadConfig = errors.New("invalid workload configuration")

// Param is one parameter a workload takes: a flag (--cost) whose value is
// a whole number in a range, one of Words, or of another Kind, and a key of
// the result's config (JSON, "" = Name; memtouch's --buffer is
// "buffer_bytes").
type Param struct {
	Name     string
	JSON     string
	Kind     Kind
	Default  int
	Min, Max int // allowed range, both included
	Help     string
	// Hidden: no flag of its own shows in --help (the command's argv,
	// which is given after --).
	Hidden bool
	// Words, when set, are the values it takes (--memory fresh|reuse),
	// written as the word: Default is the default word's index.
	Words []string
	// OwnKey makes it a compare key of its own (bcrypt's cost, a key since
	// before there were other workloads) instead of a part of the
	// workload's key.
	OwnKey bool
}

// Kind is what a Param's value is besides a number or a word.
type Kind int

const (
	Number Kind = iota // a whole number in Min–Max, or one of Words
	Argv               // a command line, as a JSON list of strings ("[\"sh\",\"-c\",\"x\"]"), never empty
	Text               // free text, up to MaxText bytes ("" by default)
	Flag               // true or false (false by default): a flag without a value
)

// MaxText bounds a Text or Argv value: a command line, not a file.
const MaxText = 64 << 10

// Key is p's key in the result's config.
func (p Param) Key() string { return cmp.Or(p.JSON, p.Name) }

// DefaultText is p's default as a flag takes it.
func (p Param) DefaultText() string {
	switch {
	case p.Kind == Argv || p.Kind == Text:
		return ""
	case p.Kind == Flag:
		return "false"
	case p.Words != nil:
		return p.Words[p.Default]
	}
	return strconv.Itoa(p.Default)
}

// defaultValue is p's default as the config holds it.
func (p Param) defaultValue() any {
	switch {
	case p.Kind == Argv:
		return []string{}
	case p.Kind == Text:
		return ""
	case p.Kind == Flag:
		return false
	case p.Words != nil:
		return p.Words[p.Default]
	}
	return p.Default
}

// Axis says whether a sweep may take a list of p's values: a comma is
// part of a command line or a text.
func (p Param) Axis() bool { return p.Kind == Number }

// value is text (a flag's, as given) as the config holds it: a number
// within range, one of the words, a command line, a text or a flag.
func (p Param) value(text string) (any, error) {
	switch p.Kind {
	case Argv:
		var argv []string
		if err := json.Unmarshal([]byte(text), &argv); err != nil || len(argv) == 0 || argv[0] == "" {
			return nil, fmt.Errorf("%s: no command given (it goes after --)", p.Name)
		}
		if len(text) > MaxText {
			return nil, fmt.Errorf("%s: longer than %d bytes", p.Name, MaxText)
		}
		return argv, nil
	case Text:
		if len(text) > MaxText {
			return nil, fmt.Errorf("%s: longer than %d bytes", p.Name, MaxText)
		}
		return text, nil
	case Flag:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%s %q not true or false", p.Name, text)
		}
		return b, nil
	}
	if p.Words != nil {
		if !slices.Contains(p.Words, text) {
			return nil, fmt.Errorf("%s %q not one of %s", p.Name, text, strings.Join(p.Words, ", "))
		}
		return text, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || n < p.Min || n > p.Max {
		return nil, fmt.Errorf("%s %s outside %d–%d", p.Name, text, p.Min, p.Max)
	}
	return n, nil
}

// check is value for what a result's config holds.
func (p Param) check(raw json.RawMessage) (any, error) {
	switch p.Kind {
	case Argv:
		return p.value(string(raw))
	case Text:
		var t string
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("%s %s: want a text", p.Name, raw)
		}
		return p.value(t)
	case Flag:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("%s %s: want true or false", p.Name, raw)
		}
		return b, nil
	}
	if p.Words != nil {
		var w string
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("%s %s: want one of %s", p.Name, raw, strings.Join(p.Words, ", "))
		}
		return p.value(w)
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("%s %s: want a whole number", p.Name, raw)
	}
	return p.value(strconv.Itoa(n))
}

// Spec declares a workload: everything the rest of the program knows of
// it. A workload is its Spec here, with its line in registry, and its
// implementation in internal/bench/workload; flags, their checks, the
// result's config, compare's key, the text and gobench names all follow
// from what it declares here.
type Spec struct {
	Name   string
	Help   string
	Params []Param
	// Alone: one process runs once per iteration (the command), so the
	// closed loop's knobs (--batch, --workers, the waits, --pin,
	// --one-per-core) and the other workloads' parameters are refused
	// with it, and --gomaxprocs defaults to runtime (the value is the
	// process's environment, not ours).
	Alone bool
	// Compute says an operation only computes: no memory mapped or
	// unmapped, no file, no sleep, no system call the Go scheduler sees
	// (bcrypt's random salt is read from the vDSO, or on kernels before
	// 6.11 by one short getrandom). The closed loop may then run a lone
	// worker without locking it to its thread (bench.RunAlone): nothing
	// it does lets another thread take over its work.
	Compute bool
	// Text names the workload with its values in a run's text summary
	// ("bcrypt cost 4"); nil: the name and each value.
	Text func(c report.Config) string
	// Key is what tells two configurations of it apart in compare
	// ("units=1000"); nil: name=value for each parameter but an OwnKey.
	Key func(c report.Config) []string
	// Gobench is its part of a Go benchmark name after /workload=NAME
	// ("/units=1000"); nil: /name=value for each parameter.
	Gobench func(c report.Config) string
	// Check refuses values that cannot go together with the closed loop's
	// batch (memtouch's kept buffers): the flag to name and the message;
	// "" when they can. nil: all can.
	Check func(p report.Params, batch int) (flag, msg string)
	// BytesPerOp is what an operation touches, for a result's mb_per_s;
	// nil: not a memory workload.
	BytesPerOp func(p report.Params) int
}

// Values turns flag values (text by Param.Name; a missing one takes its
// default) into the workload's config, in its declared order.
func (s Spec) Values(args map[string]string) (report.Params, error) {
	var ps report.Params
	for _, p := range s.Params {
		text, ok := args[p.Name]
		if !ok {
			text = p.DefaultText()
		}
		v, err := p.value(text)
		if err != nil {
			return nil, fmt.Errorf("%w: %s %w", ErrBadConfig, s.Name, err)
		}
		ps = ps.With(p.Key(), v)
	}
	return ps, nil
}

// Complete is ps as the workload runs it: its declared values in order,
// a missing one at its default, each checked; values it does not declare
// are dropped.
func (s Spec) Complete(ps report.Params) (report.Params, error) {
	var out report.Params
	for _, p := range s.Params {
		v := p.defaultValue()
		if raw, ok := ps.Raw(p.Key()); ok {
			var err error
			if v, err = p.check(raw); err != nil {
				return nil, fmt.Errorf("%w: %s %w", ErrBadConfig, s.Name, err)
			}
		}
		out = out.With(p.Key(), v)
	}
	return out, nil
}

// TextOf is c's workload as a run's text summary names it.
func (s Spec) TextOf(c report.Config) string {
	if s.Text != nil {
		return s.Text(c)
	}
	parts := []string{s.Name}
	for _, p := range s.Params {
		if raw, ok := c.Params.Raw(p.Key()); ok {
			parts = append(parts, p.Name, strings.Trim(string(raw), `"`))
		}
	}
	return strings.Join(parts, " ")
}

// KeyOf are the parts of c's workload key, besides its name.
func (s Spec) KeyOf(c report.Config) []string {
	if s.Key != nil {
		return s.Key(c)
	}
	var parts []string
	for _, p := range s.Params {
		if raw, ok := c.Params.Raw(p.Key()); ok && !p.OwnKey {
			parts = append(parts, p.Name+"="+strings.Trim(string(raw), `"`))
		}
	}
	return parts
}

// GobenchOf is c's workload's part of a Go benchmark name.
func (s Spec) GobenchOf(c report.Config) string {
	if s.Gobench != nil {
		return s.Gobench(c)
	}
	var b strings.Builder
	for _, p := range s.Params {
		if raw, ok := c.Params.Raw(p.Key()); ok && !p.OwnKey {
			b.WriteString("/" + p.Name + "=" + strings.Trim(string(raw), `"`))
		}
	}
	return b.String()
}

// registry is every workload, in the order their flags are declared: a
// new workload is a file with its Spec and a line here (and its
// implementation in internal/bench/workload's impls).
var registry = []*Spec{
	&bcryptSpec,
	&spinSpec,
	&memtouchSpec,
	&commandSpec,
}

var byName = func() map[string]*Spec {
	m := map[string]*Spec{}
	for _, s := range registry {
		if _, dup := m[s.Name]; dup {
			panic("workload registered twice: " + s.Name)
		}
		m[s.Name] = s
	}
	return m
}()

// Lookup returns the named workload's Spec.
func Lookup(name string) (Spec, error) {
	s, ok := byName[name]
	if !ok {
		return Spec{}, fmt.Errorf("%w: unknown workload %q", ErrBadConfig, name)
	}
	return *s, nil
}

// Specs are every workload, in the registry's order.
func Specs() []Spec {
	out := make([]Spec, len(registry))
	for i, s := range registry {
		out[i] = *s
	}
	return out
}

// Names lists the workloads --workload accepts, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(byName))
}

// Parse checks text as p's flag takes it and returns its value.
func (p Param) Parse(text string) (any, error) { return p.value(text) }
