package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/throttlebench/throttlebench/internal/words"
)

// A failed process's stderr is printed as its lines, indented, after the
// error's one line; anything else spanning lines is folded into one.
func TestPrintErrorTail(t *testing.T) {
	var b strings.Builder
	printError(&b, fmt.Errorf("run 1 of 3: %w", errors.New(words.WithStderr("exited with status 1", "Traceback:\n  File \"x.py\"\nValueError: no\n"))))
	assert.Equal(t, "throttlebench: run 1 of 3: exited with status 1; its stderr ends:\n    Traceback:\n      File \"x.py\"\n    ValueError: no\n", b.String())
	b.Reset()
	printError(&b, errors.New("unknown command \"x\"\n\nDid you mean this?\n\tfoo\n"))
	assert.Equal(t, "throttlebench: unknown command \"x\" Did you mean this? foo\n", b.String())
}
