package childproto

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/argv"
)

// QuoteArgv is a command line as a user would type it, in backquotes.
func QuoteArgv(a []string) string { return "`" + argv.Line(a) + "`" }

// StopGrace is how long a Server has after SIGTERM before SIGKILL.
const StopGrace = 3 * time.Second
