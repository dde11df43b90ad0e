package sandbox

import (
	"strings"
	"testing"
)

// TestStatusString checks the one-line status codeloop debug sandbox
// prints, on Linux and on macOS.
func TestStatusString(t *testing.T) {
	tests := []struct {
		st   Status
		want string
		not  string
	}{
		{Status{Available: true, Landlock: 7, Seccomp: true, MountNamespace: true}, "available: landlock ABI v7, seccomp, read-only", ""},
		{Status{Available: true, Landlock: 3}, "no mount namespace", ""},
		{Status{Available: true, Seccomp: true, MountNamespace: true, Seatbelt: true, Reason: "macOS Seatbelt through /usr/bin/sandbox-exec"},
			"available: macOS Seatbelt", "landlock"},
		{Status{Reason: "the kernel has no Landlock"}, "unavailable: the kernel has no Landlock", ""},
	}
	for _, tt := range tests {
		got := tt.st.String()
		if !strings.HasPrefix(got, tt.want) && !strings.Contains(got, tt.want) {
			t.Errorf("%+v: %q, want %q in it", tt.st, got, tt.want)
		}
		if tt.not != "" && strings.Contains(got, tt.not) {
			t.Errorf("%+v: %q names %q", tt.st, got, tt.not)
		}
	}
}
