package childproto

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/words"
)

// QuoteArgv is a command line as a user would type it, in backquotes.
func QuoteArgv(a []string) string { return "`" + words.Argv(a) + "`" }

// StopGrace is how long a Server has after SIGTERM before SIGKILL.
const StopGrace = 3 * time.Second
