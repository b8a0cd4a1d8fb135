package atomicfile

import "io"

// Write creates or replaces path with what write produces. path is checked
// as Target does, again at write time: a device, a directory or a link
// someone else planted put there since the check is not replaced or
// followed. Replacing a file keeps its permission bits and owner; a new
// file is 0644 and, under sudo, belongs to the invoking user (SUDO_UID,
// SUDO_GID).
func Write(path string, write func(io.Writer) error) error {
	return writeFile(path, write)
}

// File is one file of a directory WriteDir writes.
type File struct {
	Name  string
	Write func(io.Writer) error
}

// WriteDir writes files into the directory path, made if missing (0755,
// the invoking user's under sudo), whole: every file is rendered before
// any is written, a new directory is built beside path and renamed into
// place, and each file of an existing one is replaced as Write replaces
// it. path is reached as Target reaches a file. check, when not nil, sees
// the names already in an existing directory and may refuse it before
// anything is written.
func WriteDir(path string, files []File, check func(existing []string) error) error {
	return writeDir(path, files, check)
}
