package table

import (
	"fmt"
	"math"
	"strconv"
)

// The one duration formatter, in two spellings that outputs already
// promise: values in milliseconds (the unit of every *_ms key) scaled to
// µs, ms or s for reading.

// Ms shows milliseconds with four significant digits and the unit attached,
// for table cells that line up: 850.0µs, 45.10ms, 1.234s.
func Ms(v float64) string {
	if v != 0 {
		// Round to four significant digits first, so that 999.96ms
		// becomes 1.000s rather than 1000.0ms.
		p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
		v = math.Round(v*p) / p
	}
	unit, x := "ms", v
	switch a := math.Abs(v); {
	case a >= 1000:
		unit, x = "s", v/1000
	case a < 1 && a > 0:
		unit, x = "µs", v*1000
	}
	digits := 3
	if a := math.Abs(x); a > 0 {
		digits = min(3, max(0, 3-int(math.Floor(math.Log10(a)))))
	}
	return strconv.FormatFloat(x, 'f', digits, 64) + unit
}

// MsSpaced is the run summary's spelling, a space before the unit and
// seconds only from 10 s: 850.0 µs, 45.10 ms, 1234.5 ms, 12.35 s.
func MsSpaced(v float64) string {
	switch {
	case v >= 10000:
		return fmt.Sprintf("%.2f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.1f ms", v)
	case v >= 1:
		return fmt.Sprintf("%.2f ms", v)
	default:
		return fmt.Sprintf("%.1f µs", v*1000)
	}
}
