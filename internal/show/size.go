package show

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/sizing"
	"github.com/throttlebench/throttlebench/internal/table"
)

// size writes one object: the target (slo) and every setting measured
// (arms).
var sizeKind = Kind{Name: "size",
	Claims: func(keys map[string]json.RawMessage, _ bool) bool { return has(keys, "slo", "arms") },
	Load: func(data []byte, list bool) (Result, error) {
		if list {
			return nil, errors.New("several results in one file: size writes one, and show reads one")
		}
		var r sizing.Result
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, err
		}
		switch {
		case r.SchemaVersion != sizing.SchemaVersion:
			return nil, fmt.Errorf("schema_version %d: this throttlebench reads version %d", r.SchemaVersion, sizing.SchemaVersion)
		case len(r.Arms) == 0:
			return nil, errors.New("no arms: size measures the unlimited arm at least")
		}
		return SizeResult{r}, nil
	}}

// SizeResult is a size result read back; R is what size wrote.
type SizeResult struct{ R sizing.Result }

func (SizeResult) Kind() string            { return "size" }
func (SizeResult) Formats() []string       { return sizing.WriteFormats }
func (SizeResult) Columns(string) []string { return nil }
func (s SizeResult) Write(w io.Writer, format string, v table.View) error {
	return sizing.Write(w, s.R, format, v.Width)
}

// Plot draws size's --plot; size drew none where no level was measured.
func (s SizeResult) Plot(path string) error {
	if !s.R.HasLevels() {
		return badinput.Errorf("plot", "invalid --plot %q: this size result measured no level (only the unlimited arm), so there is no picture to draw, as size drew none", path)
	}
	return plot.SaveSize(path, sizing.Chart(s.R))
}
func (s SizeResult) Warnings() []Warning { return unlabelled(s.R.Warnings) }

// LeftOut says why format holds no figure of res, for stderr where a
// kind's format may hold none: a size result without a recommendation in
// the formats CI tools read.
func LeftOut(res Result, format string) []Warning {
	if s, ok := res.(SizeResult); ok {
		return unlabelled(s.R.LeftOut(format))
	}
	return nil
}
