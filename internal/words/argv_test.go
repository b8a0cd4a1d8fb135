package words

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLine(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"python3", "server.py", "8080"}, "python3 server.py 8080"},
		{[]string{"sh", "-c", "exec python3 s.py $PORT 200"}, "sh -c 'exec python3 s.py $PORT 200'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"ls", "*.go"}, "ls '*.go'"},
	} {
		assert.Equal(t, c.want, Argv(c.argv))
	}
}

// What Line writes, a shell reads back as the same arguments.
func TestLineRoundTrip(t *testing.T) {
	args := []string{"a b", "it's", `back\slash`, "$HOME", "`x`", "", "tab\there", "new\nline", "!bang", "~"}
	out, err := exec.Command("sh", "-c", `for a in `+Argv(args)+`; do printf '%s\0' "$a"; done`).Output()
	require.NoError(t, err)
	var got []string
	start := 0
	for i, b := range out {
		if b == 0 {
			got = append(got, string(out[start:i]))
			start = i + 1
		}
	}
	assert.Equal(t, args, got)
}
