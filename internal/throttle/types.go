package throttle

import "github.com/throttlebench/throttlebench/internal/report"

// What this package computes is kept in a result: its types are the
// result schema's, under the names this package uses.
type (
	Summary     = report.ThrottleEvents
	DurationMs  = report.EventDurationsMs
	CPU         = report.CPUEvents
	Agreement   = report.ThrottleAgreement
	Truncation  = report.ThrottleTruncation
	DroppedCPU  = report.DroppedCPU
	Requests    = report.RequestThrottles
	ThrottledMs = report.ThrottledMs
	Request     = report.P99Request
	LatencyMs   = report.LatencyMs
)
