package table

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Align is how a column's cells line up in text and markdown.
type Align int

const (
	Left Align = iota
	Right
)

// Column is a header cell, how its column aligns, and what it is to the
// fitting rule (Fit).
type Column struct {
	Name  string
	Align Align
	// ID is the name --columns knows the column by where its header is no
	// name (compare's "old time/iter"); the header otherwise.
	ID   string
	Kind Kind
	// Headline metrics are kept whatever the width.
	Headline bool
	// Rank orders the other metrics by importance, 1 the most important;
	// 0 ranks after every other. The width cuts the least important first.
	Rank int
	// Compact are shorter cells, one per row, that a narrow text table
	// shows instead (a note's footnote markers alone); nil when none.
	Compact []string
}

// Table is a header, rows of cells (one per column) and footnotes that the
// cells refer to by number (see Notes).
type Table struct {
	Columns []Column
	Rows    [][]string
	// Notes are the footnotes' texts, numbered from 1: written below the
	// table in text and markdown, left out of CSV, whose cells carry their
	// messages whole.
	Notes []string
	Style Style
	// Skipped marks the rows that did not run (nil: none): their blank
	// metrics make no column vary.
	Skipped []bool
}

// Style holds the spacing that tells the outputs apart; the zero value is
// the default of each field.
type Style struct {
	Indent int // text: spaces before the first column
	Gap    int // text: spaces between columns; 0 means 2
	Dashes int // markdown: dashes in each cell of the alignment row; 0 means 3
}

func (s Style) gap() int {
	if s.Gap == 0 {
		return 2
	}
	return s.Gap
}

// Text writes the table aligned for a terminal, the notes below it after a
// blank line. Widths count runes, so ± and superscripts take one column.
// Lines do not end in the padding of a left-aligned last column.
func Text(w io.Writer, t *Table) error {
	gap := t.Style.gap()
	widths := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		widths[i] = utf8.RuneCountInString(c.Name)
	}
	for _, row := range t.Rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) string {
		var l strings.Builder
		l.WriteString(strings.Repeat(" ", t.Style.Indent))
		for i, c := range cells {
			if i > 0 {
				l.WriteString(strings.Repeat(" ", gap))
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if t.Columns[i].Align == Right {
				l.WriteString(pad + c)
			} else {
				l.WriteString(c + pad)
			}
		}
		s := l.String()
		if n := len(t.Columns); n > 0 && t.Columns[n-1].Align == Left {
			s = strings.TrimRight(s, " ")
		}
		return s + "\n"
	}
	return t.write(w, line(t.names()), line, TextNotes)
}

// Markdown writes the table GitHub-flavoured, the notes below it as a list
// after a blank line. Cells are markdown already (code spans, bold); only
// what would break the row is escaped (see MarkdownCell).
func Markdown(w io.Writer, t *Table) error {
	dashes := t.Style.Dashes
	if dashes == 0 {
		dashes = 3
	}
	row := func(cells []string) string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = MarkdownCell(c)
		}
		return "| " + strings.Join(out, " | ") + " |\n"
	}
	var b strings.Builder
	b.WriteString(row(t.names()) + "|")
	for _, c := range t.Columns {
		if c.Align == Right {
			b.WriteString(strings.Repeat("-", dashes) + ":|")
		} else {
			b.WriteString(":" + strings.Repeat("-", dashes) + "|")
		}
	}
	b.WriteString("\n")
	return t.write(w, b.String(), row, MarkdownNotes)
}

// write writes head, a line per row, and the notes after a blank line.
func (t *Table) write(w io.Writer, head string, line func([]string) string, notes func([]string) string) error {
	var b strings.Builder
	b.WriteString(head)
	for _, r := range t.Rows {
		b.WriteString(line(r))
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n" + notes(t.Notes))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MarkdownCell escapes what would end a table cell or its row: a pipe, and
// a line break, which becomes <br>.
func MarkdownCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", "<br>")
	return strings.ReplaceAll(s, "\n", "<br>")
}

// CSV writes the header and the rows, quoted where a cell needs it; the
// notes have no place in CSV.
func CSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	cw.Write(t.names())
	for _, r := range t.Rows {
		cw.Write(r)
	}
	cw.Flush()
	return cw.Error()
}

// Write renders t as "text", "markdown" or "csv".
func Write(w io.Writer, t *Table, format string) error {
	switch format {
	case "text":
		return Text(w, t)
	case "markdown":
		return Markdown(w, t)
	case "csv":
		return CSV(w, t)
	}
	return fmt.Errorf("unknown format %q", format)
}

func (t *Table) names() []string {
	h := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		h[i] = c.Name
	}
	return h
}

// Notes numbers messages in the order cells first refer to them, so that a
// message many rows share is written once, below the table.
type Notes struct{ texts []string }

// Ref is the marker of msg (¹, ², …), numbering it if it is new.
func (n *Notes) Ref(msg string) string {
	for i, t := range n.texts {
		if t == msg {
			return Superscript(i + 1)
		}
	}
	n.texts = append(n.texts, msg)
	return Superscript(len(n.texts))
}

// Cell is a row's warnings as one cell. For people (n not nil) each is its
// headline (the text before the first ": ") with its footnote marker, the
// whole text once below the table; for machines (n nil) they are whole.
func (n *Notes) Cell(warnings []string) string {
	if n == nil {
		return strings.Join(warnings, "; ")
	}
	parts := make([]string, 0, len(warnings))
	for _, w := range warnings {
		head, _, _ := strings.Cut(w, ": ")
		parts = append(parts, head+n.Ref(w))
	}
	return strings.Join(parts, "; ")
}

// Marks are the footnote markers of warnings alone, numbering those that
// are new, joined by "˒" (¹˒² is not twelve): a note's compact cell.
func (n *Notes) Marks(warnings []string) string {
	refs := make([]string, len(warnings))
	for i, w := range warnings {
		refs[i] = n.Ref(w)
	}
	return strings.Join(refs, "˒")
}

// Texts are the messages in the order of their numbers.
func (n *Notes) Texts() []string { return n.texts }

// Superscript writes n with superscript digits: 12 is ¹².
func Superscript(n int) string {
	digits := []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")
	var b strings.Builder
	for _, c := range strconv.Itoa(n) {
		b.WriteRune(digits[c-'0'])
	}
	return b.String()
}

// TextNotes is the footnotes for a terminal: "¹ text", one a line.
func TextNotes(notes []string) string {
	var b strings.Builder
	for i, m := range notes {
		fmt.Fprintf(&b, "%s %s\n", Superscript(i+1), m)
	}
	return b.String()
}

// MarkdownNotes is the footnotes as a markdown list: "- ¹ text".
func MarkdownNotes(notes []string) string {
	var b strings.Builder
	for i, m := range notes {
		fmt.Fprintf(&b, "- %s %s\n", Superscript(i+1), m)
	}
	return b.String()
}
