package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

// A comparison in the formats CI tools read: the new side's medians with
// their intervals and the changes, the verdict and its cause beside them.
func TestCompareWritesCIFormats(t *testing.T) {
	res := Compare([]report.Report{measured(series(20, 300), series(20, 135), 0.9, 0.03)},
		[]report.Report{measured(series(20, 333), series(20, 163), 0.9, 0.03)}, defaults())
	res.Old.Name, res.New.Name = "base.json", "change.json"

	var bmf bytes.Buffer
	require.NoError(t, Write(&bmf, res, render.BMF, table.View{}))
	var bench map[string]map[string]struct {
		Value float64  `json:"value"`
		Lower *float64 `json:"lower_value"`
		Upper *float64 `json:"upper_value"`
	}
	require.NoError(t, json.Unmarshal(bmf.Bytes(), &bench), bmf.String())
	require.Len(t, bench, 1)
	for name, measures := range bench {
		assert.True(t, strings.HasPrefix(name, "Compare/workload=bcrypt/"), name)
		cpu := measures["cpu_change_pct"]
		assert.InDelta(t, 100*(163.0/135-1), cpu.Value, 1e-6)
		require.NotNil(t, cpu.Lower)
		require.NotNil(t, cpu.Upper)
		assert.LessOrEqual(t, *cpu.Lower, cpu.Value)
		assert.GreaterOrEqual(t, *cpu.Upper, cpu.Value)
		assert.InDelta(t, 163, measures["cpu_median_ms"].Value, 1e-6)
		assert.InDelta(t, 333, measures["wall_median_ms"].Value, 1e-6)
		assert.Contains(t, measures, "wall_change_pct")
	}

	var gab bytes.Buffer
	require.NoError(t, Write(&gab, res, render.GitHubActionBenchmark, table.View{}))
	var entries []struct {
		Name, Unit, Range, Extra string
		Value                    float64
	}
	require.NoError(t, json.Unmarshal(gab.Bytes(), &entries), gab.String())
	require.Len(t, entries, 4)
	assert.Contains(t, entries[0].Extra, "verdict: regression\ncause: code\nwhy: CPU per iteration +20.7%")
	assert.Contains(t, entries[0].Extra, "new: change.json")
}
