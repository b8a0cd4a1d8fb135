package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rep is a run result as compare reads it: a workload, limits, durations.
func rep(quotaUs int64, durations ...float64) Report {
	period, periods, throttled := int64(100000), uint64(10), uint64(0)
	return Report{
		SchemaVersion: SchemaVersion,
		Config:        Config{Workload: "bcrypt", Params: Params{}.With("cost", 4), Batch: 20, Iterations: len(durations), Warmup: 1, Workers: 1, GOMAXPROCS: 1},
		Cgroup:        Cgroup{Mode: "created", Version: 1, PeriodUs: &period, QuotaUs: quotaUs},
		Host:          Host{Hostname: "a", Kernel: "6.18"},
		DurationsMs:   durations,
		Model:         Model{Ratio: 1},
		Throttling:    Throttling{NrPeriods: &periods, NrThrottled: &throttled},
	}
}

func runJSON(t *testing.T, quotaUs int64, durations ...float64) string {
	t.Helper()
	b, err := json.MarshalIndent(rep(quotaUs, durations...), "", "  ")
	require.NoError(t, err)
	return string(b)
}

func TestLoadAcceptsObjectArrayAndLines(t *testing.T) {
	a, b := runJSON(t, 50000, 1, 2), runJSON(t, -1, 3)
	for _, c := range []struct {
		name, in string
		n        int
	}{
		{"one run object", a, 1},
		{"a sweep array", "[" + a + ",\n" + b + "]", 2},
		{"JSON Lines of runs", compact(t, a) + "\n" + compact(t, b) + "\n", 2},
		{"concatenated pretty objects", a + "\n" + b, 2},
		{"JSON Lines of arrays", "[" + compact(t, a) + "]\n[" + compact(t, b) + "," + compact(t, a) + "]\n", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			reps, err := Load(strings.NewReader(c.in))
			require.NoError(t, err)
			require.Len(t, reps, c.n)
			assert.Equal(t, []float64{1, 2}, reps[0].DurationsMs)
		})
	}
	// Keys this version does not know are ignored.
	reps, err := Load(strings.NewReader(`{"schema_version":1,"config":{"workload":"bcrypt"},"later":{"x":1},"durations_ms":[4]}`))
	require.NoError(t, err)
	assert.Equal(t, []float64{4}, reps[0].DurationsMs)
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestLoadRejectsWhatIsNotAResult(t *testing.T) {
	good := compact(t, runJSON(t, -1, 1))
	for _, c := range []struct {
		name, in, want string
	}{
		{"empty", "", "no results"},
		{"only space", " \n\n", "no results"},
		{"empty array", "[]", "no results"},
		{"text", "BenchmarkX 10 100 ns/op\n", "line 1"},
		{"broken second line", good + "\n{\"schema_version\": 1,\n", "line 2"},
		{"syntax error on line 3", good + "\n" + good + "\n{\"a\" 1}\n", "line 3"},
		{"a number", "42", "line 1: found 42 where a run object or an array of them belongs"},
		{"array of numbers", "[1]", "element 1: found 1 where a run object belongs"},
		// Found by FuzzLoad's one-line property: the element was quoted as written.
		{"array of arrays over lines", "[[1,\n2]]", "element 1: found [1,2] where a run object belongs"},
		{"no schema_version", `{"config":{"workload":"bcrypt"}}`, "without schema_version"},
		{"later schema", `{"schema_version":2,"config":{"workload":"bcrypt"}}`, "schema_version 2: this throttlebench reads version 1"},
		{"no workload", `{"schema_version":1}`, "without config.workload"},
		{"wrong type", `{"schema_version":1,"config":{"workload":"bcrypt"},"durations_ms":"fast"}`, "durations_ms"},
		{"second element bad", "\n\n[" + good + ",{}]", "line 3, element 2"},
		// A result with no real durations is not a result: [-5,-1,0] compared
		// as −10454.2%, an improvement.
		{"negative durations", `{"schema_version":1,"config":{"workload":"bcrypt"},"durations_ms":[-5,-1,0]}`, "line 1: durations_ms element 1 is -5: want a duration above 0 ms"},
		{"a zero duration", `{"schema_version":1,"config":{"workload":"bcrypt"},"durations_ms":[3,0]}`, "durations_ms element 2 is 0: want a duration above 0 ms"},
		{"a null duration", `{"schema_version":1,"config":{"workload":"bcrypt"},"durations_ms":[3,null,4]}`, "durations_ms element 2 is null"},
		{"no durations", `{"schema_version":1,"config":{"workload":"bcrypt"},"durations_ms":[]}`, "no durations_ms: want one per measured iteration"},
		{"durations absent", `{"schema_version":1,"config":{"workload":"bcrypt"}}`, "without durations_ms"},
		{"durations null", `{"schema_version":1,"config":{"workload":"bcrypt"},"durations_ms":null}`, "without durations_ms"},
		{"bad durations in a sweep's second run", "[" + good + `,{"schema_version":1,"config":{"workload":"bcrypt"},"durations_ms":[1,-1]}]`, "line 1, element 2: durations_ms element 2 is -1"},
		{"a duration beyond float64", `{"schema_version":1,"config":{"workload":"bcrypt"},"durations_ms":[1e400]}`, "durations_ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(c.in))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInput)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// A memtouch result written before the touch key existed stored one byte
// per page, and its reuse repainted one buffer: it loads without touch and
// reads as page, one buffer kept; one written since reads as written, a
// buffer kept per operation of the batch; another workload has neither.
func TestMemtouchTouchOfOldResults(t *testing.T) {
	r := rep(-1, 1, 2)
	r.Config = Config{Workload: "memtouch", Params: Params{}.With("buffer_bytes", 1<<20).With("memory", "fresh"), Batch: 100, Iterations: 2, Workers: 1, GOMAXPROCS: 1}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `{"workload":"memtouch","buffer_bytes":1048576,"memory":"fresh","sleep_ms":0,`)
	got, err := Load(strings.NewReader(string(b)))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, r.Config, got[0].Config, "read back as written, in order")
	assert.Empty(t, got[0].Config.Params.String("touch"), "no touch: the workload reads it as page")
}

// A workload's own values sit inline after "workload", in their order,
// whatever they are; reading them back keeps that order, and writing
// them again gives the same bytes.
func TestConfigParamsRoundTrip(t *testing.T) {
	c := Config{Workload: "x", Params: Params{}.With("b", 2).With("a", "w").With("argv", []string{"sh", "-c", "true"}), Batch: 3}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"workload":"x","b":2,"a":"w","argv":["sh","-c","true"],"sleep_ms":0,`), string(b))
	var back Config
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, c, back)
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again))
	assert.Equal(t, 2, back.Params.Int("b"))
	assert.Equal(t, "w", back.Params.String("a"))
	assert.Zero(t, back.Params.Int("a"), "not a number")

	b, err = json.Marshal(Config{Workload: "bcrypt"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"workload":"bcrypt","sleep_ms":0,`), string(b))
}
