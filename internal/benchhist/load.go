package benchhist

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// History is one benchmark's file: its runs, oldest first.
type History struct {
	File  string
	Lines []Line
}

// Load reads every *.jsonl history file below root, in path order. A line
// that is not a history line (half a line, a merge's conflict marker) is
// skipped with a warning naming the file and line. A missing root is an
// error.
func Load(root string) ([]History, []string, error) {
	var out []History
	var warnings []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		lines, warn, err := readLines(f, path)
		if err != nil {
			return err
		}
		warnings = append(warnings, warn...)
		if len(lines) > 0 {
			out = append(out, History{File: path, Lines: lines})
		}
		return nil
	})
	if err != nil {
		return nil, warnings, err
	}
	return out, warnings, nil
}

// readLines parses r's JSON lines; name names it in warnings.
func readLines(r io.Reader, name string) ([]Line, []string, error) {
	var lines []Line
	var warnings []string
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		raw, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			var l Line
			switch jerr := json.Unmarshal(raw, &l); {
			case jerr != nil:
				warnings = append(warnings, fmt.Sprintf("%s:%d: not a history line, skipped: %v", name, n, jerr))
			case l.Time == "" || l.Name == "":
				warnings = append(warnings, fmt.Sprintf("%s:%d: a history line without its time or name, skipped", name, n))
			default:
				lines = append(lines, l)
			}
		}
		if errors.Is(err, io.EOF) {
			return lines, warnings, nil
		}
		if err != nil {
			return nil, warnings, fmt.Errorf("read %s: %w", name, err)
		}
	}
}
