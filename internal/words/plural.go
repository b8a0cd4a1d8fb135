package words

import (
	"strconv"
	"strings"
)

// irregular are the nouns our output counts whose plural is not noun+"s".
var irregular = map[string]string{
	"process": "processes", "directory": "directories", "child": "children", "is": "are", "was": "were",
}

// Noun is noun's form for n of it.
func Noun(n float64, noun string) string {
	if n == 1 {
		return noun
	}
	if p, ok := irregular[noun]; ok {
		return p
	}
	if strings.HasSuffix(noun, "s") || strings.HasSuffix(noun, "x") || strings.HasSuffix(noun, "sh") || strings.HasSuffix(noun, "ch") {
		return noun + "es"
	}
	return noun + "s"
}

// N is n and the noun for it: "1 configuration", "3 configurations".
func N(n int, noun string) string { return strconv.Itoa(n) + " " + Noun(float64(n), noun) }

// F is x, formatted as Go's %g does, and the noun for it: "1 CPU",
// "0.5 CPUs", "2 CPUs".
func F(x float64, noun string) string {
	return strconv.FormatFloat(x, 'g', -1, 64) + " " + Noun(x, noun)
}
