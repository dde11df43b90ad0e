package tool

import (
	"testing"

	"github.com/codeloop/codeloop/internal/sandbox"
)

// TestTighten checks that a session's sandbox mode makes the configured
// confinement stricter and never looser.
func TestTighten(t *testing.T) {
	t.Parallel()
	ws := &Confinement{Mode: sandbox.ModeWorkspaceWrite, Network: true, Fallback: SandboxFallbackDeny}
	ro := &Confinement{Mode: sandbox.ModeReadOnly, Fallback: SandboxFallbackAsk}
	tests := []struct {
		name     string
		have     *Confinement
		session  sandbox.Mode
		wantMode sandbox.Mode // "" for no confinement
		same     bool         // the configured confinement is kept as it is
	}{
		{"no session mode", ws, "", sandbox.ModeWorkspaceWrite, true},
		{"off does not loosen", ws, sandbox.ModeOff, sandbox.ModeWorkspaceWrite, true},
		{"looser does not loosen", ro, sandbox.ModeWorkspaceWrite, sandbox.ModeReadOnly, true},
		{"equal", ws, sandbox.ModeWorkspaceWrite, sandbox.ModeWorkspaceWrite, true},
		{"stricter wins", ws, sandbox.ModeReadOnly, sandbox.ModeReadOnly, false},
		{"nothing configured", nil, sandbox.ModeWorkspaceWrite, sandbox.ModeWorkspaceWrite, false},
		{"nothing at all", nil, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.have.tighten(tt.session)
			if err != nil {
				t.Fatal(err)
			}
			if tt.same != (got == tt.have) {
				t.Errorf("kept the configured confinement: %v, want %v", got == tt.have, tt.same)
			}
			mode := sandbox.Mode("")
			if got != nil {
				mode = got.Mode
			}
			if mode != tt.wantMode {
				t.Errorf("mode %q, want %q", mode, tt.wantMode)
			}
			if got != nil && tt.have != nil && got != tt.have {
				if got.Network != tt.have.Network || got.Fallback != tt.have.Fallback {
					t.Errorf("tightening changed more than the mode: %+v from %+v", got, tt.have)
				}
				if tt.have.Mode == sandbox.ModeWorkspaceWrite && tt.session == sandbox.ModeReadOnly && ws.Mode != sandbox.ModeWorkspaceWrite {
					t.Error("tightening changed the configured confinement in place")
				}
			}
			if got != nil && tt.have == nil && (got.Sandbox == nil || got.Fallback != SandboxFallbackAsk) {
				t.Errorf("a session's own mode with nothing configured: %+v", got)
			}
		})
	}
}
