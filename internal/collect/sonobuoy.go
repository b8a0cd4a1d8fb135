package collect

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Limits on what an archive may make this read: a result is about 5 KB.
const (
	maxMember  = 64 << 20
	maxArchive = 1 << 30
)

// ErrArchive says that an input is not a readable results archive.
var ErrArchive = errors.New("not a readable Sonobuoy results archive")

// IsGzip says whether data starts as a gzip stream does (sonobuoy
// retrieve writes a .tar.gz).
func IsGzip(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }

// SonobuoyNode reads a path of a Sonobuoy results tree: a DaemonSet
// plugin's result for one node lies in plugins/<plugin>/results/<node>/
// (a Job plugin's in results/global/, no node). ok is false for any other
// path (the tree's meta/, resources/, podlogs/, the plugin's
// sonobuoy_results.yaml).
func SonobuoyNode(p string) (plugin, node string, ok bool) {
	parts := strings.Split(path.Clean(strings.TrimPrefix(p, "./")), "/")
	for i := 0; i+4 < len(parts); i++ {
		if parts[i] == "plugins" && parts[i+2] == "results" {
			node = parts[i+3]
			if node == "global" {
				node = ""
			}
			return parts[i+1], node, true
		}
	}
	return "", "", false
}

// SonobuoyFile adds one file of a Sonobuoy results tree, p its path in
// the tree; false when p is not a plugin's result.
func (c *Collection) SonobuoyFile(p string, data []byte) bool {
	_, node, ok := SonobuoyNode(p)
	if !ok {
		return false
	}
	// A directory name is anything the archive holds: only a node's name
	// is kept.
	node = report.NodeName(node)
	s := &stream{name: path.Clean(strings.TrimPrefix(p, "./"))}
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		s.lines = append(s.lines, strings.TrimSuffix(l, "\r"))
		s.at = append(s.at, i+1)
	}
	c.stream(s, node)
	return true
}

// Archive reads a results tarball, gzip-compressed or not, as sonobuoy
// retrieve writes it: every plugin's results per node. An archive without
// any is an error, as is a damaged one (a truncated download) of which no
// result file could be read; when some could, what was read before the
// damage is kept and the archive is listed as a source without the rest.
func (c *Collection) Archive(name string, r io.Reader) error {
	br := bufio.NewReader(io.LimitReader(r, maxArchive))
	head, _ := br.Peek(2)
	var tr *tar.Reader
	if IsGzip(head) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrArchive, name, err)
		}
		defer zr.Close()
		tr = tar.NewReader(zr)
	} else {
		tr = tar.NewReader(br)
	}
	members := 0
	damaged := func(err error) error {
		if members == 0 {
			return fmt.Errorf("%w: %s: %v", ErrArchive, name, err)
		}
		c.Sources++
		c.Missing = append(c.Missing, Missing{Source: name, Reason: fmt.Sprintf("archive truncated after %d result files (%v): any after them are lost", members, err)})
		return nil
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return damaged(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, node, ok := SonobuoyNode(h.Name)
		if !ok {
			continue
		}
		var b bytes.Buffer
		n, err := io.Copy(&b, io.LimitReader(tr, maxMember+1))
		if err != nil {
			return damaged(fmt.Errorf("%s: %w", h.Name, err))
		}
		if n > maxMember {
			c.Sources++
			c.Missing = append(c.Missing, Missing{Source: h.Name, Reason: fmt.Sprintf("larger than %d MiB: no result file", maxMember>>20), Node: report.NodeName(node)})
			continue
		}
		c.SonobuoyFile(h.Name, b.Bytes())
		members++
	}
	if members == 0 {
		return fmt.Errorf("%w: %s holds no plugins/<plugin>/results/<node>/ files", ErrArchive, name)
	}
	return nil
}
