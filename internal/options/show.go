package options

import (
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/table"
)

// ShowFormats are every format some result is shown in; each kind checks
// its own (Show.For).
var ShowFormats = append([]string{"text", "json", "csv", "markdown"}, render.CIFormats...)

// Show are the show command's flags as given.
type Show struct {
	Format, Output, Plot, Columns string
	// FormatGiven says --format was given, not read from -o's extension.
	FormatGiven bool
}

// Check refuses, before the file is read, what no result takes.
func (o Show) Check() error {
	if err := badinput.Choice("format", o.Format, ShowFormats); err != nil {
		return err
	}
	if err := Plot(o.Plot); err != nil {
		return err
	}
	return Output("output", o.Output)
}

// For checks the flags against the result read (its kind's formats and
// table) and gives the view it is written with, width wide.
func (o Show) For(res show.Result, width int) (table.View, error) {
	v := table.View{Width: width}
	if !slices.Contains(res.Formats(), o.Format) {
		if !o.FormatGiven { // from -o's extension
			return v, badinput.Errorf("output", "invalid --output %q: a %s result is shown as %s; give --format", o.Output, res.Kind(), strings.Join(res.Formats(), ", "))
		}
		return v, badinput.Errorf("format", "invalid --format %q: a %s result is shown as %s", o.Format, res.Kind(), strings.Join(res.Formats(), ", "))
	}
	if o.Columns == "" {
		return v, nil
	}
	names := res.Columns(o.Format)
	if names == nil {
		return v, badinput.Errorf("columns", "invalid --columns %q: a %s result's --format %s has no table of configurations", o.Columns, res.Kind(), o.Format)
	}
	var err error
	v.Columns, err = config.Columns(o.Columns, o.Format, names)
	return v, err
}
