// Package atomicfile writes files whole or not at all: into a temporary file
// in the same directory, renamed into place, so that a reader never sees half
// a file and an interrupted write leaves none behind.
//
// throttlebench runs as root and writes where a user says. Every write
// resolves the path again, one component at a time from a directory it
// holds open, following a symbolic link only by linkRule, and creates,
// checks and renames relative to the directory it reached: a link planted
// during a long sweep is refused at the next write, never followed.
//
// Target checks a path before the run, Write and WriteDir check it again at
// every write: on Linux the path is walked from a held directory descriptor
// with openat and O_NOFOLLOW (place_linux.go), and the temporary file is
// made, checked and renamed relative to the directory reached, so nothing is
// resolved by name between the check and the write. A link is followed only
// under linkRule: as the kernel's fs.protected_symlinks would follow it for
// the invoking user (SUDO_UID under sudo), and only when it is that user's or
// root's. A replaced file keeps its mode and owner; a new one is the invoking
// user's. CheckLinks applies the same rule to a path that is not a file
// (--parent).
package atomicfile
