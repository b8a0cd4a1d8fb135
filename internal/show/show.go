package show

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

// Kind is one kind of result show reads.
type Kind struct {
	Name string
	// Claims says, from the keys of the file's first JSON object, and
	// whether it came in a list (an array, or several objects one after
	// another), whether the file is of this kind.
	Claims func(keys map[string]json.RawMessage, list bool) bool
	// Load reads the whole file; an error says what is wrong with it.
	Load func(data []byte, list bool) (Result, error)
}

// Kinds are the kinds show reads, asked in this order.
var Kinds = []Kind{runKind, sweepKind, latencyKind, sampleKind, simulateKind, sizeKind}

// Result is a result read back, as its command renders it.
type Result interface {
	// Kind is the name of its Kind.
	Kind() string
	// Formats are the --format values it is shown in.
	Formats() []string
	// Columns are the names --columns takes in format; nil where that
	// output is no table of configurations.
	Columns(format string) []string
	// Write renders it in format; the tables show v's columns, text fits
	// v's width.
	Write(w io.Writer, format string, v table.View) error
	// Plot draws what the command's --plot drew into path; an error that
	// is a badinput.Error where there is no such picture.
	Plot(path string) error
	// Warnings are its warnings, each labelled with its configuration
	// where there are several.
	Warnings() []Warning
}

// Warning is a result's warning and the configuration it is about ("" for
// a result of one).
type Warning = sweep.Warning

// maxBytes bounds what Read reads: a day of sample's 10 ms intervals is
// about 200 MB.
const maxBytes = 512 << 20

// KindNames are the kinds' names, for the line that says what show reads.
func KindNames() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// Read reads the result in path. A file that cannot be read, is of no kind
// show knows, or is broken is bad input: a badinput.Error naming the file
// and, for the first two, the kinds show reads.
func Read(path string) (Result, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, badinput.Errorf("", "cannot read %q: %v", path, errors.Unwrap(err))
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxBytes+1))
	if err != nil {
		return nil, badinput.Errorf("", "cannot read %q: %v", path, err)
	}
	if len(data) > maxBytes {
		return nil, badinput.Errorf("", "%q is larger than %d MiB: no result show reads (%s) is", path, maxBytes>>20, KindNames())
	}
	return Parse(path, data)
}

// Parse is Read of data already read; path only names it.
func Parse(path string, data []byte) (Result, error) {
	keys, list, cut, why := first(data)
	if why != "" {
		return nil, badinput.Errorf("", "%q is no result show reads (%s): %s", path, KindNames(), why)
	}
	for _, k := range Kinds {
		if !k.Claims(keys, list) {
			continue
		}
		r, err := k.Load(data, list)
		if err != nil {
			return nil, badinput.Errorf("", "%q is a broken %s result: %s", path, k.Name, oneLine(err.Error()))
		}
		return r, nil
	}
	why = "its first object has none of their keys (" + keyList(keys) + ")"
	if cut != nil {
		why += ", and is cut short: " + cut.Error()
	}
	return nil, badinput.Errorf("", "%q is no result show reads (%s): %s", path, KindNames(), why)
}

// first is the keys of the first JSON object in data, and whether it is in
// a list: an array, or followed by another value (JSON Lines). It reads
// the keys one by one, so that a file cut short still says its kind (and
// Load what is wrong with it); cut is what stopped it early. why says why
// there is no object at all.
func first(data []byte) (keys map[string]json.RawMessage, list bool, cut error, why string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	switch {
	case err == io.EOF:
		return nil, false, nil, "it is empty"
	case err != nil:
		return nil, false, nil, "it is not JSON: " + err.Error()
	case tok == json.Delim('['):
		list = true
		if tok, err = dec.Token(); err != nil {
			return nil, list, nil, "it is not JSON: " + err.Error()
		}
		if tok == json.Delim(']') {
			return nil, list, nil, "an empty array"
		}
	}
	if tok != json.Delim('{') {
		return nil, list, nil, fmt.Sprintf("found %v where a result object belongs", tok)
	}
	keys = map[string]json.RawMessage{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return keys, list, err, ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			keys[fmt.Sprint(k)] = nil
			return keys, list, err, ""
		}
		keys[fmt.Sprint(k)] = v
	}
	if _, err := dec.Token(); err != nil { // the object's '}'
		return keys, list, err, ""
	}
	return keys, list || dec.More(), nil, ""
}

// keyList names a few of an object's keys, for the line that says it is of
// no kind.
func keyList(keys map[string]json.RawMessage) string {
	if len(keys) == 0 {
		return "it has none"
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return "it has " + strings.Join(names, ", ")
}

// has says whether keys hold every one of names.
func has(keys map[string]json.RawMessage, names ...string) bool {
	for _, n := range names {
		if _, ok := keys[n]; !ok {
			return false
		}
	}
	return true
}

// oneLine keeps a decoder's message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
