package report

import (
	"encoding/json"
	"io"
)

// WriteJSON writes v (a report or a list of them) as indented JSON: the
// schema above is the contract, this is its one writer.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// AddWarning adds a warning found outside Build: how the run got to its
// cgroup, or what it could not tidy afterwards.
func (r *Report) AddWarning(w Warning) { r.Warnings = append(r.Warnings, w) }

// AddWarning adds a warning found outside BuildLatency.
func (r *Latency) AddWarning(w Warning) { r.Warnings = append(r.Warnings, w) }
