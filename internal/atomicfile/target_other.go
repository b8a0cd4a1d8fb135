//go:build !linux

package atomicfile

func pseudoFS(string) (string, bool) { return "", false }

func writable(string) error { return nil }
