package words

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

const traceback = `Traceback (most recent call last):
  File "/srv/server.py", line 9, in <module>
    httpd = HTTPServer(("127.0.0.1", 8081), Handler)
OSError: [Errno 98] Address already in use
`

func TestAppend(t *testing.T) {
	got := WithStderr("the server exited (exit status 1)", traceback)
	assert.Equal(t, `the server exited (exit status 1); its stderr ends:
    Traceback (most recent call last):
      File "/srv/server.py", line 9, in <module>
        httpd = HTTPServer(("127.0.0.1", 8081), Handler)
    OSError: [Errno 98] Address already in use`, got)
	assert.NotContains(t, got, `\n`, "lines, not an escaped string")
	assert.Equal(t, "x; its stderr was empty", WithStderr("x", " \n\n"))
}

func TestLines(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "line %d\r\n", i)
	}
	got := StderrLines("\n\n" + b.String() + "\n\n")
	assert.Len(t, got, StderrMaxLines, "the last 20")
	assert.Equal(t, "line 31", got[0])
	assert.Equal(t, "line 50", got[19])
	assert.Equal(t, []string{"red ?[31mX?[0m", "\tindented"}, StderrLines("red \x1b[31mX\x1b[0m\n\tindented"), "escapes shown, tabs kept")
	long := StderrLines(strings.Repeat("é", 400))
	assert.LessOrEqual(t, len(long[0]), maxLine+len("…"))
	assert.True(t, strings.HasSuffix(long[0], "…"))
	assert.Empty(t, StderrLines(""))
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name, msg, text string
		tail            []string
	}{
		{"no tail", "invalid --cpus \"x\"", "invalid --cpus \"x\"", nil},
		{"a library's lines folded", "unknown command\n\nDid you mean this?\n\tfoo\n", "unknown command Did you mean this? foo", nil},
		{"a tail", WithStderr("run 1: exited with status 1", traceback), "run 1: exited with status 1; its stderr ends:",
			[]string{"Traceback (most recent call last):", `  File "/srv/server.py", line 9, in <module>`, `    httpd = HTTPServer(("127.0.0.1", 8081), Handler)`, "OSError: [Errno 98] Address already in use"}},
		{"text after the tail rejoined", WithStderr("x", "a\nb") + "\nand then", "x; its stderr ends: and then", []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, tail := SplitStderr(tc.msg)
			assert.Equal(t, tc.text, text)
			assert.Equal(t, tc.tail, tail)
		})
	}
}
