package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// Every string comes back as the same string, whatever a YAML reader would
// make of it unquoted: numbers, bools of YAML 1.1, nulls, dates, flags,
// indicators, newlines.
func TestScalarsRoundTrip(t *testing.T) {
	for _, s := range []string{
		"run", "--cgroup", "-", "0.25", "20", "1e3", ".5", ".inf", "0x1F", "0o17", "+1", "1_000", "12:30",
		"2024-01-01", "20240101-120000", "yes", "No", "ON", "off", "y", "n", "true", "False", "null", "~", "",
		"throttlebench:dev", "a: b", "#x", "*x", "&x", "!x", "%x", "@x", "`x", "|", ">", "[x]", "{x}", "x,y",
		"100µs", "line\nbreak", "tab\there", `quote"d`, "back\\slash", "  spaced  ", "node-a.example.com",
	} {
		doc := document(mapping{{"k", s}, {s + "key", "v"}})
		var got map[string]any
		require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &got), "%q:\n%s", s, doc)
		assert.Equal(t, s, got["k"], "%q as a value:\n%s", s, doc)
		assert.Equal(t, "v", got[s+"key"], "%q as a key:\n%s", s, doc)
	}
}

func TestNestedLayout(t *testing.T) {
	doc := document(mapping{
		{"a", mapping{{"b", 1}, {"c", []any{mapping{{"d", "e"}, {"f", strs([]string{"g"})}}, "h"}}}},
		{"empty", mapping{}},
		{"none", []any{}},
		{"yes", true},
	})
	assert.Equal(t, `a:
  b: 1
  c:
  - d: e
    f:
    - g
  - h
empty: {}
none: []
"yes": true
`, doc)
}

func TestLabelValue(t *testing.T) {
	assert.Equal(t, "500us", labelValue("500µs"))
	assert.Equal(t, "1m0s", labelValue("1m0s"))
	assert.Equal(t, "a_b", labelValue("a b"))
	assert.Equal(t, "x", labelValue("-x-"))
	assert.Empty(t, LabelValue(labelValue("0.25")))
}

func TestQuantities(t *testing.T) {
	b, err := Bytes("256Mi")
	require.NoError(t, err)
	assert.Equal(t, int64(256<<20), b)
	b, err = Bytes("1.5G")
	require.NoError(t, err)
	assert.Equal(t, int64(1.5e9), b)
	for _, bad := range []string{"", "Mi", "-1Mi", "1MB", "1e3", "0x10"} {
		_, err := Bytes(bad)
		assert.Error(t, err, bad)
	}
	for cpus, want := range map[float64]string{0.25: "250m", 1: "1", 1.5: "1500m", 0.001: "1m", 2: "2"} {
		m, ok := Millicores(cpus)
		assert.True(t, ok, "%v", cpus)
		assert.Equal(t, want, CPUQuantity(m))
	}
	for _, cpus := range []float64{0.1234, 0.0005, 0} {
		_, ok := Millicores(cpus)
		assert.False(t, ok, "%v", cpus)
	}
}

func TestNames(t *testing.T) {
	assert.Empty(t, NodeName("ip-10-0-1-23.ec2.internal"))
	assert.Empty(t, NodeName("gke-c-pool-a-1b2c3d4e-x9z8"))
	for _, bad := range []string{"", "Node", "a_b", "-a", "a-", "a..b", string(make([]byte, 254))} {
		assert.NotEmpty(t, NodeName(bad), "%q", bad)
	}
	assert.Empty(t, LabelKey("cloud.google.com/gke-nodepool"))
	assert.Empty(t, LabelKey("pool"))
	assert.NotEmpty(t, LabelKey("Bad_Prefix/x"))
	assert.NotEmpty(t, LabelKey("a/"))
	assert.Empty(t, SweepID("20240101-120000"))
	assert.NotEmpty(t, SweepID("x_y"))
}
