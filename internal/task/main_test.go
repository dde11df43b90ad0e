package task_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the tests when a session loop or child run outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
