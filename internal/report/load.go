package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrInput says that an input is not a throttlebench result file.
var ErrInput = errors.New("not a throttlebench result")

// Load reads run results: one JSON object (the output of run), a JSON array
// of them (the output of sweep), or several of either one after another
// (JSON Lines, e.g. the runs of a CI job appended to one file). Keys it does
// not know are ignored, so files written by later versions with new keys
// still load; a schema_version it does not know is refused.
func Load(r io.Reader) ([]Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []Report
	for {
		start := skipSpace(data, int(dec.InputOffset()))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("%w: line %d: %v", ErrInput, line(data, int(se.Offset)), err)
			}
			return nil, fmt.Errorf("%w: line %d: %v", ErrInput, line(data, start), err)
		}
		var items []json.RawMessage
		switch raw[0] {
		case '{':
			items = []json.RawMessage{raw}
		case '[':
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrInput, line(data, start), err)
			}
		default:
			return nil, fmt.Errorf("%w: line %d: found %.20s where a run object or an array of them belongs", ErrInput, line(data, start), oneLine(raw))
		}
		for i, item := range items {
			rep, err := decodeReport(item)
			if err != nil {
				where := fmt.Sprintf("line %d", line(data, start))
				if raw[0] == '[' {
					where += fmt.Sprintf(", element %d", i+1)
				}
				return nil, fmt.Errorf("%w: %s: %v", ErrInput, where, err)
			}
			out = append(out, rep)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no results in the input", ErrInput)
	}
	return out, nil
}

func decodeReport(item json.RawMessage) (Report, error) {
	var rep Report
	if len(item) == 0 || item[0] != '{' {
		return rep, fmt.Errorf("found %.20s where a run object belongs", oneLine(item))
	}
	if err := json.Unmarshal(item, &rep); err != nil {
		return rep, err
	}
	switch {
	case rep.SchemaVersion == 0:
		return rep, errors.New("an object without schema_version is not a run result")
	case rep.SchemaVersion != SchemaVersion:
		return rep, fmt.Errorf("schema_version %d: this throttlebench reads version %d", rep.SchemaVersion, SchemaVersion)
	case rep.Config.Workload == "":
		return rep, errors.New("a run result without config.workload")
	}
	return rep, checkDurations(item)
}

// checkDurations refuses a result whose durations_ms are not what a run
// measures: absent, empty, or holding a null or a value that is no
// duration (≤ 0). Compared as if measured, [-5,-1,0] showed a change of
// −10454.2% and counted as an improvement. A null would have decoded as 0,
// so the elements are read as pointers to tell it apart.
func checkDurations(item json.RawMessage) error {
	var d struct {
		DurationsMs []*float64 `json:"durations_ms"`
	}
	if err := json.Unmarshal(item, &d); err != nil {
		return err
	}
	switch {
	case d.DurationsMs == nil:
		return errors.New("a run result without durations_ms")
	case len(d.DurationsMs) == 0:
		return errors.New("a run result with no durations_ms: want one per measured iteration")
	}
	for i, v := range d.DurationsMs {
		switch {
		case v == nil:
			return fmt.Errorf("durations_ms element %d is null: want a duration above 0 ms", i+1)
		case !(*v > 0) || math.IsInf(*v, 0):
			return fmt.Errorf("durations_ms element %d is %v: want a duration above 0 ms", i+1, *v)
		}
	}
	return nil
}

// oneLine is a JSON value on one line, as an error quotes it: an array
// spread over lines would break compare's one line of diagnosis.
func oneLine(v json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// line is the 1-based line number of byte offset off.
func line(data []byte, off int) int {
	return 1 + bytes.Count(data[:min(max(off, 0), len(data))], []byte("\n"))
}
