package collect

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Whatever a log holds, Log neither panics nor hangs, and every source is
// either a result or a reason.
func FuzzLog(f *testing.F) {
	for _, name := range []string{"single.log", "prefixed.log", "timestamps.log", "failed.log", "truncated.log", "empty.log"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[pod/a/b] {\n[pod/a/b] }\n[\n]\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Collection
		c.Log("fuzz", data)
		if c.Sources == 0 {
			t.Fatal("no source counted")
		}
		for _, m := range c.Missing {
			if m.Reason == "" || bytes.ContainsAny([]byte(m.Reason), "\n\r") {
				t.Fatalf("a reason must be one line: %q", m.Reason)
			}
		}
		c.Reports()
	})
}

// Whatever an archive holds, Archive returns (an error or not) without a
// panic.
func FuzzArchive(f *testing.F) {
	data, err := os.ReadFile("testdata/sonobuoy.tar.gz")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Collection
		_ = c.Archive("fuzz", bytes.NewReader(data))
	})
}
