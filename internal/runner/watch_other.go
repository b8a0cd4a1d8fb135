//go:build !linux

package runner

import "errors"

func startWatchedProcess(string, []string) (watchedHandle, error) {
	return nil, errors.New("sample -- CMD runs on Linux only")
}
