package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A traced cgroup's throttle events name the group whose run queue was
// throttled by its kernfs id (the directory's inode number): the cgroup
// itself, one below it, or an ancestor whose limit held it. Family finds
// those groups' directories from the ids and reads their counters, so that
// each group's traced time is set against its own cpu.stat.

// The relations of a group to the traced cgroup.
const (
	RelTarget     = "target"
	RelDescendant = "descendant"
	RelAncestor   = "ancestor"
)

// Member is one cgroup of a traced cgroup's family, read at one moment.
type Member struct {
	ID       uint64 // kernfs id: its directory's inode number
	Path     string // the cgroup path as the kernel names it
	Relation string // RelTarget, RelDescendant or RelAncestor
	// Stat is its cpu.stat now; nil where it was not read (an ancestor
	// without a limit, whose queues are never throttled) or could not be.
	Stat *CPUStat
}

// Family reads the cgroup at dir (of hier), each cgroup below it and each
// of its ancestors up to the mount point: their ids and paths, and the
// counters of the cgroup, its descendants and the ancestors with a limit
// (cpu.cfs_quota_us or cpu.max not unlimited). A descendant removed while
// the walk runs is left out.
func (hier Hierarchy) Family(dir string) ([]Member, error) {
	dir = filepath.Clean(dir)
	if dir != hier.MountPoint && !strings.HasPrefix(dir, hier.MountPoint+"/") {
		return nil, fmt.Errorf("%s is not in the cgroup hierarchy at %s", dir, hier.MountPoint)
	}
	var out []Member
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		id, err := DirID(p)
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		rel := RelDescendant
		if p == dir {
			rel = RelTarget
		}
		out = append(out, hier.member(p, id, rel, true))
		return nil
	})
	if err != nil {
		return nil, err
	}
	for p := dir; p != hier.MountPoint; {
		p = filepath.Dir(p)
		id, err := DirID(p)
		if err != nil {
			return nil, err
		}
		l, err := hier.atDir(p).Limits()
		limited := err == nil && l.Quota != Unlimited
		out = append(out, hier.member(p, id, RelAncestor, limited))
	}
	return out, nil
}

// member is the cgroup at dir, its counters read when count says so.
func (hier Hierarchy) member(dir string, id uint64, rel string, count bool) Member {
	m := Member{ID: id, Path: hier.atDir(dir).Path, Relation: rel}
	if count {
		if s, err := hier.atDir(dir).Stat(); err == nil {
			m.Stat = &s
		}
	}
	return m
}

// FamilyOf is Family in the hierarchy of the cpu controller, which holds
// dir (a traced cgroup's directory).
func (h Host) FamilyOf(dir string) ([]Member, error) {
	hier, err := h.CPUHierarchy(0)
	if err != nil {
		return nil, err
	}
	return hier.Family(dir)
}

// DirID is the kernfs id of the cgroup at dir: its directory's inode.
func DirID(dir string) (uint64, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, err
	}
	id, ok := inode(fi)
	if !fi.IsDir() || !ok {
		return 0, fmt.Errorf("%s is not a cgroup directory", dir)
	}
	return id, nil
}

// Counted is one group's throttled time over a window.
type Counted struct {
	ID       uint64
	Path     string
	Relation string
	// Throttled is the throttled time over the window; nil where it is
	// not known: the group was not read at both ends (removed within the
	// window), an ancestor without a limit, or a counter it lacks.
	Throttled *time.Duration
}

// FamilyOver is each group's throttled time between two readings of a
// family, start and end (later entries of end win over earlier ones of
// the same id, so a group read just before its removal can be appended).
// A group absent from start was made within the window: its counters
// started at zero, and its whole reading at the end is the window's.
func FamilyOver(start, end []Member) []Counted {
	first := map[uint64]Member{}
	for _, m := range start {
		first[m.ID] = m
	}
	last := map[uint64]Member{}
	var order []uint64
	note := func(m Member) {
		if _, ok := last[m.ID]; !ok {
			order = append(order, m.ID)
		}
		last[m.ID] = m
	}
	for _, m := range end {
		note(m)
	}
	for _, m := range start {
		if _, ok := last[m.ID]; !ok {
			order = append(order, m.ID)
		}
	}
	out := make([]Counted, 0, len(order))
	for _, id := range order {
		a, atEnd := last[id]
		b, atStart := first[id]
		c := Counted{ID: id}
		switch {
		case !atEnd:
			c.Path, c.Relation = b.Path, b.Relation
		case !atStart:
			c.Path, c.Relation = a.Path, a.Relation
			if a.Stat != nil {
				c.Throttled = a.Stat.ThrottledTime
			}
		default:
			c.Path, c.Relation = a.Path, a.Relation
			if a.Stat != nil && b.Stat != nil {
				c.Throttled = a.Stat.Sub(*b.Stat).ThrottledTime
			}
		}
		out = append(out, c)
	}
	return out
}
