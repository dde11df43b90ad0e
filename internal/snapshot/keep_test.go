package snapshot

import (
	"os"
	"testing"
)

// TestMain lets the test binary be a snapshot keeper (Options.Keeper).
func TestMain(m *testing.M) {
	Main(os.Args)
	os.Exit(m.Run())
}
