package testenv

import (
	"os"
	"testing"
)

// InCI says whether the suite runs in CI: .ci/run sets CI=true.
func InCI() bool { return os.Getenv("CI") == "true" }

// SkipOrFail skips t, saying why, or fails it in CI.
func SkipOrFail(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatalf("precondition missing in CI: %s", why)
	}
	t.Skip(why)
}

// NeedRoot is SkipOrFail unless this process runs as root; why says what
// root is needed for.
func NeedRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		SkipOrFail(t, "needs root "+why)
	}
}
