//go:build !linux

package tracer

import (
	"errors"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

var errLinuxOnly = errors.New("tracing throttle events is Linux-only (eBPF on the scheduler's tracepoints)")

// Tracer is Linux-only; see session_linux.go.
type Tracer struct{}

// Probe says that throttle events cannot be traced here.
func Probe() (ends string, err error) { return "", errLinuxOnly }

// ExactEnds: no interval ends anywhere here.
func ExactEnds() bool { return false }

// CountsEmptyStretches: as where the kernel cannot be read.
func CountsEmptyStretches() bool { return true }

// ExactStarts: nor starts.
func ExactStarts() bool { return false }

// Model is "": there is no kernel to read.
func Model() string { return "" }

// New fails: tracing is Linux-only.
func New(func(throttle.Event), func(throttle.State)) (*Tracer, error) { return nil, errLinuxOnly }

// CgroupID fails: tracing is Linux-only.
func CgroupID(dir string) (uint64, error) { return 0, errLinuxOnly }

// Attaches: none here.
func Attaches() uint64 { return 0 }

// Track fails: tracing is Linux-only.
func (t *Tracer) Track(id uint64) error { return errLinuxOnly }

// Untrack does nothing.
func (t *Tracer) Untrack(id uint64) error { return nil }

// Stop does nothing.
func (t *Tracer) Stop() (lost uint64, err error) { return 0, nil }

// Attach names no attach point.
func (t *Tracer) Attach() string { return "" }

// HoldEnds is where a hold ends: none is traced here.
func (t *Tracer) HoldEnds() string { return "" }

// Sync does nothing.
func (t *Tracer) Sync() error { return nil }

// LostSoFar: nothing traced, nothing lost.
func (t *Tracer) LostSoFar() uint64 { return 0 }

// StatesLostSoFar: nothing traced, nothing lost.
func (t *Tracer) StatesLostSoFar() uint64 { return 0 }
