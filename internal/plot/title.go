package plot

import (
	"fmt"
	"strings"

	"github.com/throttlebench/throttlebench/internal/sweep"
)

// Title names a sweep's chart after the machine it ran on, or the nodes of
// a cluster its results came from (collect).
func Title(rows []sweep.Row) string {
	var nodes []string
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Report != nil && r.Report.Host.Node != "" && !seen[r.Report.Host.Node] {
			seen[r.Report.Host.Node] = true
			nodes = append(nodes, r.Report.Host.Node)
		}
	}
	if len(nodes) > 1 {
		if len(nodes) > 4 {
			nodes = append(nodes[:3], fmt.Sprintf("… %d more", len(nodes)-3))
		}
		return fmt.Sprintf("throttlebench sweep on %d nodes (%s)", len(seen), strings.Join(nodes, ", "))
	}
	for _, r := range rows {
		if r.Report != nil {
			h := r.Report.Host
			where := h.Hostname
			if h.Node != "" {
				where = "node " + h.Node
			}
			return fmt.Sprintf("throttlebench sweep on %s (%s, kernel %s, %d CPUs)", where, h.CPUModel, h.Kernel, h.NumCPU)
		}
	}
	return "throttlebench sweep"
}
