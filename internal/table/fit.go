package table

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Tables a terminal can show. A table of configurations has more columns
// than a terminal is wide (latency's has over twenty); for a person the
// text table keeps the columns that tell its rows apart, the headline
// metrics and the notes, leaves out what is the same in every row (saying
// its value above the table), then the least important metrics until the
// rows fit the width, and says what it left out. Markdown and CSV are
// never cut: they go to files and to other programs, which scroll or read
// every column; a list of --columns chooses their columns too.

// DefaultWidth is what a text table fits when its output is no terminal
// (a pipe, a file): the width of the terminals it is most often pasted into.
const DefaultWidth = 80

// Kind is what a column is to the fitting rule.
type Kind int

const (
	// Metric is a measured value: kept when it is a headline, when it
	// varies and the width allows, by importance (Column.Rank).
	Metric Kind = iota
	// Key is one of the configuration's values (a swept flag): kept while
	// it tells rows apart, whatever the width.
	Key
	// Note is the rows' notes (warnings, why a row was skipped): kept
	// while any row has one.
	Note
)

// Columns is which columns a table shows (--columns): the zero value fits
// a text table to its width; All shows every column; Names shows those
// (with the keys that tell the rows apart, and the notes).
type Columns struct {
	All   bool
	Names []string
}

// View is how a table is shown: its columns and the width a text table
// fits, which is also where prose around it is wrapped. Width 0 means no
// limit: every column, no line wrapped.
type View struct {
	Columns
	Width int
}

// Fitted is a table as a view shows it, and what the view left out.
type Fitted struct {
	*Table
	Same  []string // name=value of the columns left out for being the same in every row
	Empty []string // columns left out for being empty in every row
	Cut   []string // columns left out to fit the width, in table order
	Width int
}

// id is the name --columns knows a column by: its header, or ID when the
// header is no name (has spaces, or is empty).
func (c Column) id() string {
	if c.ID != "" {
		return c.ID
	}
	return c.Name
}

// IDs are the names of t's columns, as --columns takes them.
func (t *Table) IDs() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.id()
	}
	return out
}

// Pick is t with the columns a list of names chooses: the keys that tell
// the rows apart (and those named), the names in their order, and the
// notes if any row has one. It is what markdown and CSV get, which are cut
// only by a list the user gave; no list leaves t whole.
func Pick(t *Table, c Columns) *Table {
	if len(c.Names) == 0 {
		return t
	}
	return t.project(t.named(c.Names), false)
}

// Fit is t as v shows it on a terminal.
//
// By default: the notes are kept while any row has one; keys while they
// differ between rows; a metric empty in every row that ran is left out
// (Empty), headline or not, as it has nothing to show; headline metrics
// are kept; any other column that is the same in every row is left out
// (its value goes into Same; a metric's sameness is over the rows that
// ran, as a skipped row has none). Then, while the rows are wider than
// v.Width, the least important metric that is no headline goes (the
// highest Rank, 0 ranking last; among equals the rightmost). Where the
// note column has compact cells (its footnote markers alone) they replace
// the full ones whenever that keeps more columns, or is what makes the
// rows fit: the numbers matter more than a note's headline, whose whole
// text is below the table anyway.
//
// Keys, headlines and notes are never cut, so a table whose headlines do
// not fit stays wider than v.Width. With v.All, or no width, t is whole;
// with v.Names, the columns Pick chooses, the note compact where they are
// wider than v.Width.
func Fit(t *Table, v View) Fitted {
	switch {
	case len(v.Names) > 0:
		idx := t.named(v.Names)
		compact := v.Width > 0 && t.width(idx, false) > v.Width && t.hasCompact(idx)
		return Fitted{Table: t.project(idx, compact), Width: v.Width}
	case v.All || v.Width <= 0:
		return Fitted{Table: t, Width: v.Width}
	}
	f := Fitted{Width: v.Width}
	var keep []int
	for i, c := range t.Columns {
		value, same := t.same(i)
		switch {
		case c.Kind == Note:
			if !t.blank(i) {
				keep = append(keep, i)
			}
		case c.Kind == Metric && t.blankMetric(i):
			f.Empty = append(f.Empty, c.id())
		case c.Headline || !same:
			keep = append(keep, i)
		default:
			f.Same = append(f.Same, c.id()+"="+value)
		}
	}
	full, fullCut := t.cut(keep, v.Width, false)
	kept, cut, compact := full, fullCut, false
	if c, cCut := t.cut(keep, v.Width, true); t.hasCompact(keep) &&
		(len(c) > len(full) || t.width(full, false) > v.Width) {
		kept, cut, compact = c, cCut, true
	}
	slices.Sort(cut)
	for _, i := range cut {
		f.Cut = append(f.Cut, t.Columns[i].id())
	}
	f.Table = t.project(kept, compact)
	return f
}

// same says whether column i holds one value in every row, and which: at
// least two rows must have one (the rows that ran, for a metric).
func (t *Table) same(i int) (string, bool) {
	n, value := 0, ""
	for r, row := range t.Rows {
		if t.Columns[i].Kind == Metric && r < len(t.Skipped) && t.Skipped[r] {
			continue
		}
		if n > 0 && row[i] != value {
			return "", false
		}
		n, value = n+1, row[i]
	}
	return value, n >= 2
}

// blankMetric says whether metric column i is empty in every row that
// ran, there being one: there is nothing to show, headline or not.
func (t *Table) blankMetric(i int) bool {
	ran := 0
	for r, row := range t.Rows {
		if r < len(t.Skipped) && t.Skipped[r] {
			continue
		}
		if row[i] != "" {
			return false
		}
		ran++
	}
	return ran > 0
}

// blank says whether column i is empty in every row.
func (t *Table) blank(i int) bool {
	for _, row := range t.Rows {
		if row[i] != "" {
			return false
		}
	}
	return true
}

func (t *Table) hasCompact(keep []int) bool {
	for _, i := range keep {
		if t.Columns[i].Compact != nil {
			return true
		}
	}
	return false
}

// cut drops from keep, least important first, the metrics that are no
// headline until the rows fit width; it returns what is left and what went.
func (t *Table) cut(keep []int, width int, compact bool) (kept, cut []int) {
	kept = slices.Clone(keep)
	for t.width(kept, compact) > width {
		victim := -1
		for j, i := range kept {
			c := t.Columns[i]
			if c.Kind != Metric || c.Headline {
				continue
			}
			if victim < 0 || rankAfter(c.Rank, t.Columns[kept[victim]].Rank) {
				victim = j
			}
		}
		if victim < 0 {
			break
		}
		cut = append(cut, kept[victim])
		kept = slices.Delete(kept, victim, victim+1)
	}
	return kept, cut
}

// rankAfter says whether rank a is as unimportant as b or less (0 ranks
// after every other), so that among equals the rightmost goes first.
func rankAfter(a, b int) bool {
	if a == 0 {
		return true
	}
	return b != 0 && a >= b
}

// width is how wide the rows of columns idx are in text.
func (t *Table) width(idx []int, compact bool) int {
	w := t.Style.Indent + t.Style.gap()*max(0, len(idx)-1)
	for _, i := range idx {
		w += t.colWidth(i, compact)
	}
	return w
}

func (t *Table) colWidth(i int, compact bool) int {
	c := t.Columns[i]
	w := utf8.RuneCountInString(c.Name)
	for r, row := range t.Rows {
		cell := row[i]
		if compact && c.Compact != nil {
			cell = c.Compact[r]
		}
		w = max(w, utf8.RuneCountInString(cell))
	}
	return w
}

// named are the columns a list of names shows: the keys that tell rows
// apart, the names in their order, and the notes, if any row has one.
func (t *Table) named(names []string) []int {
	var idx []int
	for i, c := range t.Columns {
		if _, same := t.same(i); c.Kind == Key && (!same && len(t.Rows) > 1 || slices.Contains(names, c.id())) {
			idx = append(idx, i)
		}
	}
	for _, n := range names {
		if i := slices.Index(t.IDs(), n); i >= 0 && !slices.Contains(idx, i) && t.Columns[i].Kind != Note {
			idx = append(idx, i)
		}
	}
	for i, c := range t.Columns {
		if c.Kind == Note && !t.blank(i) {
			idx = append(idx, i)
		}
	}
	return idx
}

// project is t with the columns idx, in that order; compact shows the
// compact cells where a column has them.
func (t *Table) project(idx []int, compact bool) *Table {
	p := &Table{Notes: t.Notes, Style: t.Style}
	for _, i := range idx {
		c := t.Columns[i]
		c.Compact = nil
		p.Columns = append(p.Columns, c)
	}
	for r, row := range t.Rows {
		cells := make([]string, len(idx))
		for j, i := range idx {
			cells[j] = row[i]
			if compact && t.Columns[i].Compact != nil {
				cells[j] = t.Columns[i].Compact[r]
			}
		}
		p.Rows = append(p.Rows, cells)
	}
	if t.Skipped != nil {
		p.Skipped = slices.Clone(t.Skipped)
	}
	return p
}

// Header is what the view left out, for above the table: the values the
// rows share, then what went to fit the width, with how to see it all;
// wrapped to the width between items. "" when nothing was left out.
func (f Fitted) Header() string {
	type token struct{ sep, text string }
	var lines [][]token
	// A list breaks after its head and between items.
	list := func(sep, head string, items []string) []token {
		out := []token{{sep, head}}
		for i, it := range items {
			sep := ", "
			if i == 0 {
				sep = " "
			}
			out = append(out, token{sep, it})
		}
		return out
	}
	var shared []token
	if len(f.Same) > 0 {
		shared = list("", "same in every row:", f.Same)
	}
	if len(f.Empty) > 0 {
		if shared == nil {
			shared = list("", "empty in every row:", f.Empty)
		} else {
			shared = append(shared, list("; ", "empty:", f.Empty)...)
		}
	}
	if shared != nil {
		lines = append(lines, shared)
	}
	if len(f.Cut) > 0 {
		lines = append(lines, list("", fmt.Sprintf("left out to fit %d columns:", f.Width), f.Cut))
	}
	if len(lines) == 0 {
		return ""
	}
	last := &lines[len(lines)-1]
	*last = append(*last, token{"; ", "--columns all shows them"})
	var b strings.Builder
	for _, l := range lines {
		n := 0
		for i, tk := range l {
			w := utf8.RuneCountInString(tk.sep + tk.text)
			// A break after this item leaves the next one's comma on
			// this line: it must fit too.
			next := 0
			if i+1 < len(l) {
				next = utf8.RuneCountInString(strings.TrimRight(l[i+1].sep, " "))
			}
			if i > 0 && f.Width > 0 && n+w+next > f.Width {
				b.WriteString(strings.TrimRight(tk.sep, " ") + "\n  ")
				n = 2
				w = utf8.RuneCountInString(tk.text)
			} else {
				b.WriteString(tk.sep)
			}
			b.WriteString(tk.text)
			n += w
		}
		b.WriteString("\n")
	}
	return b.String()
}

// WriteText writes a text table as v shows it: head (the caller's lines
// about the whole table) and what the view left out, wrapped to the width,
// a blank line after them when there are any, the rows, and the notes
// below them wrapped too.
func WriteText(w io.Writer, head string, t *Table, v View) error {
	f := Fit(t, v)
	var b strings.Builder
	above := Wrap(head, v.Width) + f.Header()
	if above != "" {
		b.WriteString(above + "\n")
	}
	notes := f.Table.Notes
	rows := *f.Table
	rows.Notes = nil
	if err := Text(&b, &rows); err != nil {
		return err
	}
	if len(notes) > 0 {
		b.WriteString("\n" + Wrap(TextNotes(notes), v.Width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Wrap breaks the lines of s longer than width at spaces, each line's
// continuation indented by two spaces; a word longer than the width stays
// whole. Width 0 leaves s as it is.
func Wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, line := range lines {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		prefix := ""
		for utf8.RuneCountInString(prefix+line) > width {
			room := width - utf8.RuneCountInString(prefix)
			cut := lastSpaceWithin(line, room)
			if cut <= 0 {
				break
			}
			b.WriteString(prefix + strings.TrimRight(line[:cut], " ") + "\n")
			line = strings.TrimLeft(line[cut:], " ")
			prefix = "  "
		}
		b.WriteString(prefix + line)
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// lastSpaceWithin is the byte offset of the last space at which s can be
// broken so that what comes before it takes at most room runes; -1 if
// there is none (then the first space, so an over-long word stays whole).
func lastSpaceWithin(s string, room int) int {
	last, runes := -1, 0
	for i, r := range s {
		if runes > room {
			break
		}
		if r == ' ' && i > 0 {
			last = i
		}
		runes++
	}
	if last < 0 {
		return strings.IndexByte(s, ' ')
	}
	return last
}
