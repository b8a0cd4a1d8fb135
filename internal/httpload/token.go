package httpload

import "strings"

// IsToken is RFC 9110's token: what a method or a header's name may be.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c > 0x7e || c <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", c) {
			return false
		}
	}
	return true
}

// ParseHeader reads "Name: value" (blanks around either trimmed): false
// where the name is no token or the value holds a line break or a NUL,
// which would end the header or the request early.
func ParseHeader(h string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(h, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || !IsToken(name) || strings.ContainsAny(value, "\r\n\x00") {
		return "", "", false
	}
	return name, value, true
}
