package throttle

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Raw events, relative to the window's start: one began before it.
var traceEvents = []Event{
	{CPU: 1, TID: 42, Start: 1_500_000, End: 4_000_000},
	{CPU: 0, TID: 7, Start: -250_000, End: 1_000_000},
}

func TestWriteTraceJSON(t *testing.T) {
	var b bytes.Buffer
	tr := Trace{Events: traceEvents, What: "request", Spans: []Span{{Start: 1_000_000, End: 5_000_000, TID: 42}, {Start: 2_000_000, End: 3_000_000, TID: 9}},
		Parts: []Parts{parts(1_000_000, 2_500_000, 500_000, 0), {}}, Known: []bool{true, false}}
	if err := WriteTrace(&b, tr, "json"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Events     []map[string]any `json:"events"`
		Requests   []map[string]any `json:"requests"`
		Iterations []map[string]any `json:"iterations"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	exactly := func(what string, got, want []map[string]any) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d objects, want %d", what, len(got), len(want))
		}
		for i := range want {
			for k, v := range want[i] {
				if got[i][k] != v {
					t.Errorf("%s %d %s = %v, want %v", what, i, k, got[i][k], v)
				}
			}
			if len(got[i]) != len(want[i]) {
				t.Errorf("%s %d has keys %v, want exactly %v", what, i, got[i], want[i])
			}
		}
	}
	exactly("event", got.Events, []map[string]any{
		{"cpu": 1.0, "tid": 42.0, "start_ms": 1.5, "end_ms": 4.0, "duration_ms": 2.5},
		{"cpu": 0.0, "tid": 7.0, "start_ms": -0.25, "end_ms": 1.0, "duration_ms": 1.25},
	})
	exactly("request", got.Requests, []map[string]any{
		{"index": 0.0, "tid": 42.0, "start_ms": 1.0, "end_ms": 5.0, "duration_ms": 4.0, "on_cpu_ms": 1.0, "held_ms": 2.5, "waiting_ms": 0.5, "off_cpu_ms": 0.0},
		{"index": 1.0, "tid": 9.0, "start_ms": 2.0, "end_ms": 3.0, "duration_ms": 1.0},
	})
	if got.Iterations != nil {
		t.Errorf("iterations %v in a trace of requests", got.Iterations)
	}
	b.Reset()
	if err := WriteTrace(&b, Trace{}, "json"); err != nil || strings.Join(strings.Fields(b.String()), "") != `{"events":[]}` {
		t.Errorf("no events: %q, %v; want {\"events\": []}", b.String(), err)
	}
}

func TestWriteTraceCSV(t *testing.T) {
	var b bytes.Buffer
	// The window starts 1 ms after the clock's zero.
	if err := WriteTrace(&b, Trace{Events: traceEvents, T0: 1_000_000, Spans: []Span{{Start: 0, End: 1}}}, "csv"); err != nil {
		t.Fatal(err)
	}
	want := "cpu,tid,start_ms,end_ms,duration_ms\n1,42,0.5,3,2.5\n0,7,-1.25,0,1.25\n"
	if b.String() != want {
		t.Errorf("CSV\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteTrace(&b, Trace{}, "csv"); err != nil || b.String() != "cpu,tid,start_ms,end_ms,duration_ms\n" {
		t.Errorf("no events: %q, %v; want the header alone", b.String(), err)
	}
}

func TestWriteTraceUnknownFormat(t *testing.T) {
	var b bytes.Buffer
	err := WriteTrace(&b, Trace{Events: traceEvents}, "yaml")
	if err == nil || !strings.Contains(err.Error(), `"yaml"`) || b.Len() != 0 {
		t.Errorf("format yaml: err %v, wrote %q; want an error naming it and nothing written", err, b.String())
	}
}

// --trace-out's file: JSON, or CSV by its name, written whole.
func TestEventsFile(t *testing.T) {
	dir := t.TempDir()
	events := []Event{{CPU: 1, TID: 2, Start: 3_000_000, End: 5_000_000}}
	for name, want := range map[string]string{"e.json": `"duration_ms": 2`, "e.CSV": "cpu,tid,start_ms,end_ms,duration_ms\n1,2,2,4,2\n"} {
		path := filepath.Join(dir, name)
		if err := EventsFile(path, Trace{T0: 1_000_000, Events: events}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%s: %q lacks %q", name, data, want)
		}
	}
}
