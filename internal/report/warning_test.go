package report

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A warning is written as an object; read back it is the same warning.
func TestWarningRoundTrip(t *testing.T) {
	in := []Warning{Warn(KindBusyMachine, "busy machine: %d CPUs", 2), {Kind: KindFewIterations, Side: "old", Text: "old (1 of 2 results): few iterations"}}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"kind":"busy_machine","text":"busy machine: 2 CPUs"},{"kind":"few_iterations","text":"old (1 of 2 results): few iterations","side":"old"}]`, string(data))
	var out []Warning
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, in, out)
}

// A result written before warnings had kinds holds plain strings: each
// reads as a warning of kind unknown with that text, beside new objects.
func TestWarningReadsOldStrings(t *testing.T) {
	var ws []Warning
	require.NoError(t, json.Unmarshal([]byte(`["few periods: 3 CFS periods", {"kind":"busy_machine","text":"busy machine: x"}, {"text":"no kind"}]`), &ws))
	assert.Equal(t, []Warning{
		{Kind: KindUnknown, Text: "few periods: 3 CFS periods"},
		{Kind: KindBusyMachine, Text: "busy machine: x"},
		{Kind: KindUnknown, Text: "no kind"},
	}, ws)
	assert.Error(t, json.Unmarshal([]byte(`[3]`), &ws), "a number is no warning")
}

// A whole result of either form loads.
func TestLoadReadsBothWarningForms(t *testing.T) {
	for _, c := range []struct{ name, warnings string }{
		{"old", `["few iterations: compare can never find a change"]`},
		{"new", `[{"kind":"few_iterations","text":"few iterations: compare can never find a change"}]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := `{"schema_version":` + strconv.Itoa(SchemaVersion) + `,"config":{"workload":"bcrypt"},"durations_ms":[1,2],"warnings":` + c.warnings + `}`
			reps, err := Load(strings.NewReader(doc))
			require.NoError(t, err)
			require.Len(t, reps, 1)
			require.Len(t, reps[0].Warnings, 1)
			assert.Equal(t, "few iterations: compare can never find a change", reps[0].Warnings[0].Text)
			want := KindFewIterations
			if c.name == "old" {
				want = KindUnknown
			}
			assert.Equal(t, want, reps[0].Warnings[0].Kind)
		})
	}
}

// FuzzWarning: whatever the bytes, a warning that reads has a kind, and
// writes back to what reads as itself.
func FuzzWarning(f *testing.F) {
	for _, s := range []string{`"busy machine: x"`, `{"kind":"few_periods","text":"few periods"}`, `{"text":"t"}`, `{"kind":"x","text":"y","side":"new"}`, `null`, `""`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var w Warning
		if err := json.Unmarshal(data, &w); err != nil {
			return
		}
		if string(data) != "null" && w.Kind == "" {
			t.Fatalf("%q read without a kind", data)
		}
		out, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		var back Warning
		if err := json.Unmarshal(out, &back); err != nil || back != w && w.Kind != "" {
			t.Fatalf("%q wrote %s, which reads as %+v (%v)", data, out, back, err)
		}
	})
}

// Every Kind constant is in Kinds once, with what it means, and Kinds
// names no other.
func TestKindsIsTheOneTable(t *testing.T) {
	consts := kindConsts(t)
	require.NotEmpty(t, consts)
	seen := map[string]bool{}
	for _, k := range Kinds {
		assert.False(t, seen[k.Kind], "%s twice", k.Kind)
		seen[k.Kind] = true
		assert.NotEmpty(t, k.Means, k.Kind)
		assert.Contains(t, consts, k.Kind, "a kind without its constant")
	}
	for _, c := range consts {
		assert.True(t, seen[c], "constant %s is not in Kinds", c)
	}
}

// kindConsts are the values of the Kind constants declared in warning.go.
func kindConsts(t *testing.T) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "warning.go", nil, 0)
	require.NoError(t, err)
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		v, ok := n.(*ast.ValueSpec)
		if !ok || len(v.Names) != 1 || !strings.HasPrefix(v.Names[0].Name, "Kind") || len(v.Values) != 1 {
			return true
		}
		if lit, ok := v.Values[0].(*ast.BasicLit); ok {
			s, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			out = append(out, s)
		}
		return true
	})
	return out
}

// docs/README.md's table of kinds is Kinds: a kind added here is a row
// there. The failure prints the table to paste.
func TestDocsListEveryKind(t *testing.T) {
	var b strings.Builder
	b.WriteString("| kind | what it means |\n|---|---|\n")
	for _, k := range Kinds {
		b.WriteString("| `" + k.Kind + "` | " + k.Means + " |\n")
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "README.md"))
	require.NoError(t, err)
	if !strings.Contains(string(data), b.String()) {
		t.Fatalf("docs/README.md does not hold the table of warning kinds; it should read:\n%s", b.String())
	}
}
