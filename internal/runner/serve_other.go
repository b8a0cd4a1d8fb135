//go:build !linux

package runner

import (
	"errors"
	"io"
)

func startServerProcess(string, []string, []string) (serverHandle, error) {
	return nil, errors.New("--serve runs on Linux only")
}

const GuardArg = "__guard"

func Guard([]string, io.Reader, io.Writer) int { return 2 }

func startGuardProcess(string, string) (guardHandle, error) {
	return nil, errors.New("--serve runs on Linux only")
}
