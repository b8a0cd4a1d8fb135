//go:build !linux

package runner

import "errors"

func startServerProcess(string, []string) (serverHandle, error) {
	return nil, errors.New("--serve runs on Linux only")
}
