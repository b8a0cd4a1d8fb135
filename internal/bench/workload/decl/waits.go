package decl

import "time"

// MaxSleep bounds --sleep: a sleep is not cut short when a run is
// stopped, so it must stay short against a person waiting.
const MaxSleep = time.Second
