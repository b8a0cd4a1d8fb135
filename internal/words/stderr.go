package words

import (
	"strings"
	"unicode"
)

// StderrMaxLines is how many of the last lines a message keeps.
const StderrMaxLines = 20

// maxLine bounds one line (a minified stack trace can be one line of
// megabytes).
const maxLine = 300

// StderrIndent starts each line of the tail in a message.
const StderrIndent = "    "

// StderrLines are the last StderrMaxLines lines of s, trailing spaces, carriage
// returns and blank lines at either end dropped, control characters
// (terminal escapes) shown as '?', each line cut to maxLine bytes.
func StderrLines(s string) []string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		l = strings.Map(func(r rune) rune {
			if r == '\t' || !unicode.IsControl(r) {
				return r
			}
			return '?'
		}, strings.TrimRightFunc(l, unicode.IsSpace))
		if len(l) > maxLine {
			l = strings.ToValidUTF8(l[:maxLine], "") + "…"
		}
		lines[i] = l
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > StderrMaxLines {
		lines = lines[len(lines)-StderrMaxLines:]
	}
	return lines
}

// WithStderr is msg with the end of stderr after it: "msg; its stderr
// ends:" and the lines, each "\n" + StderrIndent + line; with an empty
// stderr, "msg; its stderr was empty".
func WithStderr(msg, stderr string) string {
	lines := StderrLines(stderr)
	if len(lines) == 0 {
		return msg + "; its stderr was empty"
	}
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString("; its stderr ends:")
	for _, l := range lines {
		b.WriteString("\n" + StderrIndent + l)
	}
	return b.String()
}

// SplitStderr takes a message apart: its text, on one line (what a caller
// wrapped around the tail rejoined to it), and the tail's lines, without
// their indent. A message without a tail is all text.
func SplitStderr(msg string) (text string, tail []string) {
	before, rest, ok := strings.Cut(msg, "\n"+StderrIndent)
	if !ok {
		return oneLine(msg), nil
	}
	var after []string
	for i, l := range strings.Split(StderrIndent+rest, "\n") {
		if t, ok := strings.CutPrefix(l, StderrIndent); ok && len(after) == 0 {
			tail = append(tail, t)
			continue
		}
		if i > 0 {
			after = append(after, l)
		}
	}
	return oneLine(strings.Join(append([]string{before}, after...), " ")), tail
}

// oneLine folds whatever else spans lines (a library's message) into one.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
