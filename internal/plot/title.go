package plot

import (
	"fmt"

	"github.com/throttlebench/throttlebench/internal/sweep"
)

// Title names a sweep's chart after the machine it ran on.
func Title(rows []sweep.Row) string {
	for _, r := range rows {
		if r.Report != nil {
			h := r.Report.Host
			return fmt.Sprintf("throttlebench sweep on %s (%s, kernel %s, %d CPUs)", h.Hostname, h.CPUModel, h.Kernel, h.NumCPU)
		}
	}
	return "throttlebench sweep"
}
