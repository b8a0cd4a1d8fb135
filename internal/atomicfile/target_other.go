//go:build !linux

package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Elsewhere than Linux (where throttlebench does not measure), a simple
// fallback that follows no link at all.

type place struct{ file string }

func locate(path string) (*place, error) {
	if path == "" {
		return nil, &TargetError{Reason: "empty file name"}
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &TargetError{Reason: path + " is a symbolic link, not followed here", link: true}
	}
	return &place{file: path}, nil
}

func (p *place) close()       {}
func (p *place) path() string { return p.file }

func (p *place) check() error {
	fi, err := os.Stat(p.file)
	switch {
	case err == nil && fi.IsDir():
		return &TargetError{Reason: p.file + " is a directory"}
	case err == nil && !fi.Mode().IsRegular():
		return &TargetError{Reason: fmt.Sprintf("%s is not a regular file (%s)", p.file, kind(fi.Mode()))}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return &TargetError{Reason: err.Error()}
	}
	if fi, err := os.Stat(filepath.Dir(p.file)); err != nil || !fi.IsDir() {
		return &TargetError{Reason: fmt.Sprintf("directory %s does not exist", filepath.Dir(p.file))}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	p, err := locate(path)
	if err == nil {
		err = p.check()
	}
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func writeDir(path string, files []File, check func([]string) error) error {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return err
	}
	if check != nil {
		if err := check(nil); err != nil {
			return err
		}
	}
	for _, f := range files {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(path, f.Name), func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
			return err
		}
	}
	return nil
}
