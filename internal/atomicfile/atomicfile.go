// Package atomicfile writes files whole or not at all: into a temporary file
// in the same directory, renamed into place, so that a reader never sees half
// a file and an interrupted write leaves none behind.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what write produces. path is checked
// as Target does, again at write time: a device or directory put there since
// the check is not replaced, and a symbolic link is written through.
func Write(path string, write func(io.Writer) error) (err error) {
	target, err := Target(path)
	if err != nil {
		return err
	}
	// Beside the target, so that the rename stays on one filesystem and
	// replaces it in one step.
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	renamed := false
	defer func() {
		// On every path that did not rename it, a panic in write included.
		if !renamed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; results are for everyone to read.
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp, target); err != nil {
		return err
	}
	renamed = true
	return nil
}
