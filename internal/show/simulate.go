package show

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/table"
)

// simulate writes a cell (one object for a single cell, an array
// otherwise: model.WriteCells), each with its expected WCET.
var simulateKind = Kind{Name: "simulate",
	Claims: func(keys map[string]json.RawMessage, _ bool) bool { return has(keys, "e_wcet", "p_wcet_1") },
	Load: func(data []byte, list bool) (Result, error) {
		var cells []model.Cell
		dec := json.NewDecoder(bytes.NewReader(data))
		for n := 1; ; n++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("value %d: %v", n, err)
			}
			items := []json.RawMessage{raw}
			if raw[0] == '[' {
				if err := json.Unmarshal(raw, &items); err != nil {
					return nil, fmt.Errorf("value %d: %v", n, err)
				}
			}
			for i, item := range items {
				var c model.Cell
				if err := json.Unmarshal(item, &c); err != nil {
					return nil, fmt.Errorf("value %d, element %d: %v", n, i+1, err)
				}
				if c.Cgroups < 1 || c.Replicas < 2 {
					return nil, fmt.Errorf("value %d, element %d: cgroups %d, replicas %d: want a cell simulate ran (at least 1 cgroup, 2 replicas)", n, i+1, c.Cgroups, c.Replicas)
				}
				cells = append(cells, c)
			}
		}
		if len(cells) == 0 {
			return nil, errors.New("no cells in it")
		}
		return simulateResult{cells, list}, nil
	}}

type simulateResult struct {
	cells []model.Cell
	list  bool
}

func (simulateResult) Kind() string      { return "simulate" }
func (simulateResult) Formats() []string { return model.SimulateFormats }
func (simulateResult) Columns(format string) []string {
	if !slices.Contains(config.TableFormats, format) {
		return nil
	}
	return model.CellColumns(format)
}
func (s simulateResult) Write(w io.Writer, format string, v table.View) error {
	return model.WriteCells(w, s.cells, format, s.list, v)
}
func (s simulateResult) Plot(path string) error { return plot.SaveSimulation(path, s.cells) }
func (simulateResult) Warnings() []Warning      { return nil }
