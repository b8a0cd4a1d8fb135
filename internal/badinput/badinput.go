// Package badinput is how throttlebench refuses input: an Error is one
// line naming the flag, the value and what is allowed; the command exits
// 2 and has created nothing. Every room that checks input imports it, and
// it imports nothing of throttlebench's, so that checking a flag links no
// engine.
package badinput

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Error is bad input: one line naming the parameter, the value and what is
// allowed. A Combination is bad only in how values combine (a burst above
// the quota): a sweep skips such a configuration instead of stopping.
type Error struct {
	Param       string
	Msg         string
	Combination bool
}

func (e *Error) Error() string { return e.Msg }

// Errorf makes an Error about param.
func Errorf(param, format string, a ...any) error {
	return &Error{Param: param, Msg: fmt.Sprintf(format, a...)}
}

// Combinationf makes an Error about param that is bad only beside the
// other values given.
func Combinationf(param, format string, a ...any) error {
	return &Error{Param: param, Msg: fmt.Sprintf(format, a...), Combination: true}
}

// IsCombination says whether err is a combination that cannot be.
func IsCombination(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Combination
}

// Is says whether err is bad input (exit 2).
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Choice refuses a value of flag that is not one of allowed.
func Choice(flag, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return Errorf(flag, "invalid --%s %q: want one of %s", flag, v, strings.Join(allowed, ", "))
	}
	return nil
}

// PathCause is what went wrong with a path, without the path: the error
// that quotes the flag's value names it already ("no such file or
// directory", not "open x: no such file or directory").
func PathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
