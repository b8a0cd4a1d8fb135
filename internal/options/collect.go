package options

import (
	"os"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/kube"
)

// Collect are the collect command's flags.
type Collect struct {
	Output string
	// Nodes keeps only the results of these nodes; none keeps every node.
	Nodes []string
}

// Check refuses, before any input is read, flags and inputs collect
// cannot take: bad input is a badinput.Error. An input is a file, a
// directory, or - for stdin (once).
func (o Collect) Check(inputs []string) error {
	if err := Output("output", o.Output); err != nil {
		return err
	}
	for _, n := range o.Nodes {
		if why := kube.NodeName(n); why != "" {
			return badinput.Errorf("node", "invalid --node %q: %s", n, why)
		}
	}
	stdin := 0
	for _, a := range inputs {
		if a == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return badinput.Errorf("", "invalid arguments: - (stdin) given %d times; stdin can be read once", stdin)
	}
	for _, a := range inputs {
		if a == "-" {
			continue
		}
		if _, err := os.Stat(a); err != nil {
			return badinput.Errorf("", "invalid input %q: %v; want a log file, a results archive, a directory, or - for stdin", a, badinput.PathCause(err))
		}
	}
	return nil
}
