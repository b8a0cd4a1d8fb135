package main

import (
	"fmt"
	"io"

	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/table"
)

// compareSizes compares two size results: no test, exit 0 (NoSizeTest).
func compareSizes(r compare.Run, old, new compare.SizeSide, stdout, stderr io.Writer) error {
	res := compare.CompareSize(old, new)
	if err := writeOutput(r.Output, stdout, func(w io.Writer) error {
		return compare.WriteSize(w, res, r.Format, table.View{Width: tableWidth(r.Output, stdout)})
	}); err != nil {
		return err
	}
	if r.Format != "text" || r.Output != "" {
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "throttlebench: warning: %s\n", w.Text)
		}
	}
	return nil
}
