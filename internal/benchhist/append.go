package benchhist

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Append adds l to the end of the history file at path, made (with its
// directories) if missing. The line goes in one write to a file opened
// O_APPEND, so that two writers never interleave and an interrupted run
// leaves whole lines: each line was written or not. Should a file end in
// half a line all the same (a machine that lost power), the new line
// starts on a line of its own and Load skips the broken one with a
// warning (a writer that catches another's line half written does the
// same: a blank line, which Load skips too). Under sudo what Append makes belongs to the invoking user
// (SUDO_UID, SUDO_GID), so that root's make bench leaves a history its
// user can commit.
func Append(path string, l Line) error {
	data, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("history line of %s: %w", l.Name, err)
	}
	if err := mkdirs(filepath.Dir(path)); err != nil {
		return err
	}
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		chownInvoker(path)
	}
	torn, err := endsTorn(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if torn {
		data = append([]byte{'\n'}, data...)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// endsTorn says f is not empty and does not end in a newline.
func endsTorn(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], st.Size()-1); err != nil && err != io.EOF {
		return false, err
	}
	return last[0] != '\n', nil
}

// mkdirs makes dir and its missing parents, each the invoking user's.
func mkdirs(dir string) error {
	st, err := os.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s: not a directory", dir)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirs(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	chownInvoker(dir)
	return nil
}

// chownInvoker gives path to the user who ran sudo, when we are root under
// sudo; elsewhere it does nothing. A failure leaves root's file, which is
// still a history.
func chownInvoker(path string) {
	if os.Geteuid() != 0 {
		return
	}
	u, err1 := strconv.Atoi(os.Getenv("SUDO_UID"))
	g, err2 := strconv.Atoi(os.Getenv("SUDO_GID"))
	if err1 != nil || err2 != nil {
		return
	}
	_ = os.Lchown(path, u, g)
}

// AppendAll appends a line per benchmark, run in env, to its history file
// below root (Path, with module), and returns the files written.
func AppendAll(benches []Bench, env Env, root, module string) ([]string, error) {
	var files []string
	for _, b := range benches {
		path := Path(root, module, b.Pkg, b.Name)
		if err := Append(path, env.Line(b)); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}
