package collect

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/throttlebench/throttlebench/internal/badinput"
)

// maxLog bounds one log read whole: a pod's result is about 5 KB.
const maxLog = 1 << 30

// Read recovers what every input holds: stdin (-), a file (a log, or an
// archive by its gzip or tar header), or a directory (an extracted
// Sonobuoy archive, or log files). An input that cannot be read is bad
// input; a source without a result is listed in Missing.
func Read(inputs []string, stdin io.Reader) (*Collection, error) {
	c := &Collection{}
	for _, a := range inputs {
		if err := c.readInput(a, stdin); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Collection) readInput(arg string, stdin io.Reader) error {
	if arg == "-" {
		return c.read("stdin", stdin)
	}
	fi, err := os.Stat(arg)
	if err != nil {
		return badInput(arg, badinput.PathCause(err))
	}
	if fi.IsDir() {
		return c.readDir(arg)
	}
	f, err := os.Open(arg)
	if err != nil {
		return badInput(arg, badinput.PathCause(err))
	}
	defer f.Close()
	return c.read(arg, f)
}

func badInput(name string, err any) error {
	return badinput.Errorf("", "invalid input %q: %v", name, err)
}

// read tells an archive from a log by its first bytes.
func (c *Collection) read(name string, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1024)
	head, _ := br.Peek(512)
	if IsGzip(head) || isTar(head) {
		if err := c.Archive(name, br); err != nil {
			return badInput(name, err)
		}
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(br, maxLog+1))
	if err != nil {
		return badInput(name, err)
	}
	if len(data) > maxLog {
		return badInput(name, fmt.Sprintf("larger than %d MiB; a pod's result is a few KB", maxLog>>20))
	}
	c.Log(name, data)
	return nil
}

// isTar says whether a block is a tar header (the ustar magic).
func isTar(head []byte) bool {
	return len(head) >= 262 && string(head[257:262]) == "ustar"
}

// readDir reads an extracted Sonobuoy archive (it has plugins/), or else
// every regular file below dir as a log, in the order of their paths.
func (c *Collection) readDir(dir string) error {
	sonobuoy := false
	if fi, err := os.Stat(filepath.Join(dir, "plugins")); err == nil && fi.IsDir() {
		sonobuoy = true
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return badInput(dir, badinput.PathCause(err))
	}
	read := 0
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		if sonobuoy {
			if _, _, ok := SonobuoyNode(filepath.ToSlash(rel)); !ok {
				continue
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return badInput(p, badinput.PathCause(err))
		}
		if sonobuoy {
			c.SonobuoyFile(filepath.ToSlash(rel), data)
		} else {
			c.Log(p, data)
		}
		read++
	}
	if read == 0 {
		return badInput(dir, "no log files in it (and no plugins/<plugin>/results/<node>/ of a Sonobuoy archive)")
	}
	return nil
}
