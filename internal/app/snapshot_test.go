package app

import (
	"os"
	"testing"
)

// TestKeeperPath checks that the snapshot keeper is this executable unless
// the user's environment turns it off.
func TestKeeperPath(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no executable path:", err)
	}
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, exe},
		{map[string]string{"CODELOOP_DISABLE_SNAPSHOT_KEEPER": "1"}, ""},
		{map[string]string{"CODELOOP_DISABLE_SNAPSHOT_KEEPER": "true"}, ""},
		{map[string]string{"CODELOOP_DISABLE_SNAPSHOT_KEEPER": "0"}, exe},
		{map[string]string{"CODELOOP_DISABLE_SNAPSHOT_KEEPER": ""}, exe},
	}
	for _, tt := range tests {
		if got := keeperPath(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("keeperPath(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
