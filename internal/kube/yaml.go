package kube

import (
	"regexp"
	"strconv"
	"strings"
)

// A tiny YAML writer for the manifests, so that the binary links no YAML
// library: block style only, keys in the order given, every string that a
// YAML 1.1 or 1.2 reader could take for something else (a number, a bool,
// a null, a date) double-quoted. Tests decode its output strictly into the
// Kubernetes API types.

// mapping is a YAML mapping whose keys keep their order.
type mapping []field

type field struct {
	key   string
	value any // string, int, int64, bool, mapping, []any
}

// plainRE is what may stay unquoted: letters, digits and a few marks, not
// starting with a dot (.inf, .nan).
var plainRE = regexp.MustCompile(`^[A-Za-z0-9/_-][A-Za-z0-9/_.-]*$`)

// numberish are the strings that could read as a number or a date in some
// YAML version: a digit among only the marks numbers and dates use, or a
// 0x/0o/0b prefix.
var numberishRE = regexp.MustCompile(`^[-+]?(0[xob]|[0-9._:eE+-]*[0-9][0-9._:eE+-]*$)`)

var yamlWords = map[string]bool{
	"y": true, "yes": true, "n": true, "no": true, "true": true, "false": true,
	"on": true, "off": true, "null": true, "~": true,
}

// scalar writes a string as YAML: plain when it is unambiguous, else a
// double-quoted string (Go's quoting is a subset of YAML's escapes).
func scalar(s string) string {
	if s != "-" && plainRE.MatchString(s) && !numberishRE.MatchString(s) && !yamlWords[strings.ToLower(s)] {
		return s
	}
	return strconv.Quote(s)
}

func writeValue(b *strings.Builder, v any, indent int) {
	switch v := v.(type) {
	case mapping:
		for _, f := range v {
			writeField(b, f, indent)
		}
	case []any:
		for _, item := range v {
			b.WriteString(strings.Repeat(" ", indent) + "- ")
			if m, ok := item.(mapping); ok && len(m) > 0 {
				// The first field on the dash's line, the others below it.
				var inner strings.Builder
				writeValue(&inner, m, indent+2)
				b.WriteString(strings.TrimLeft(inner.String(), " "))
				continue
			}
			b.WriteString(inline(item) + "\n")
		}
	}
}

func writeField(b *strings.Builder, f field, indent int) {
	pad := strings.Repeat(" ", indent)
	switch v := f.value.(type) {
	case mapping:
		if len(v) == 0 {
			b.WriteString(pad + scalar(f.key) + ": {}\n")
			return
		}
		b.WriteString(pad + scalar(f.key) + ":\n")
		writeValue(b, v, indent+2)
	case []any:
		if len(v) == 0 {
			b.WriteString(pad + scalar(f.key) + ": []\n")
			return
		}
		// Sequences at the key's own indentation, as kubectl writes them.
		b.WriteString(pad + scalar(f.key) + ":\n")
		writeValue(b, v, indent)
	default:
		b.WriteString(pad + scalar(f.key) + ": " + inline(v) + "\n")
	}
}

func inline(v any) string {
	switch v := v.(type) {
	case string:
		return scalar(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case mapping:
		return "{}"
	case []any:
		return "[]"
	}
	panic("kube: no YAML for this value")
}

// document renders one YAML document.
func document(m mapping) string {
	var b strings.Builder
	writeValue(&b, m, 0)
	return b.String()
}

// strs turns strings into a YAML sequence.
func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
