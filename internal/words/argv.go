package words

import "strings"

// special are the characters after which a shell would split, expand or
// end an argument.
const special = " \t\n'\"\\$`*?[]{}()<>|&;#~!"

// Argv is argv joined by spaces, each argument that a shell would split
// or expand in single quotes (a quote inside as '\”).
func Argv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Quote(a)
	}
	return strings.Join(out, " ")
}

// Quote is one argument as a shell would take it back unchanged.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, special) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
