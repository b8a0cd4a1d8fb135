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
