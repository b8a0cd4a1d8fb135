//go:build !linux

package tracer

import (
	"errors"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

var errLinuxOnly = errors.New("tracing throttle events is Linux-only (eBPF on the scheduler's tracepoints)")

// Tracer is Linux-only; see tracer_linux.go.
type Tracer struct{}

// Probe says that throttle events cannot be traced here.
func Probe() (ends string, err error) { return "", errLinuxOnly }

// ExactEnds: no interval ends anywhere here.
func ExactEnds() bool { return false }

// ExactStarts: nor starts.
func ExactStarts() bool { return false }

// Start fails: tracing is Linux-only.
func Start(cgroupDir string, onEvent func(throttle.Event)) (*Tracer, error) {
	return nil, errLinuxOnly
}

// Stop does nothing.
func (t *Tracer) Stop() (lost uint64, err error) { return 0, nil }

// Attach names no attach point.
func (t *Tracer) Attach() string { return "" }
