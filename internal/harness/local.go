package harness

import (
	"context"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Local runs configurations on this machine's kernel: the runner a sweep
// uses (tests give it fakes).
type Local struct{}

// Run runs one configuration.
func (Local) Run(ctx context.Context, o Options) (*report.Report, error) { return Run(ctx, o) }
