package permission

import (
	"errors"
	"testing"
)

// TestAliasRules checks how rules apply to a program's other names: a deny
// or ask rule about the program holds, one that matches the command as
// called as well does not count twice, so a catch-all rule does not make
// an allowed command ask.
func TestAliasRules(t *testing.T) {
	svc := NewService(nil, nil, Options{NonInteractive: true})
	req := Request{SessionID: "ses_1", Permission: "bash", Patterns: []string{"python -m pytest"},
		Aliases: []Alias{{Pattern: "python -m pytest", As: "python3.12 -m pytest"}}}
	tests := []struct {
		rules Ruleset
		want  string
	}{
		{Ruleset{{Permission: "bash", Pattern: "*", Action: Ask}, {Permission: "bash", Pattern: "python *", Action: Allow}}, "allow"},
		{Ruleset{{Permission: "bash", Pattern: "*", Action: Allow}, {Permission: "bash", Pattern: "python3.12 *", Action: Deny}}, "deny"},
		{Ruleset{{Permission: "bash", Pattern: "*", Action: Allow}, {Permission: "bash", Pattern: "python3* *", Action: Ask}}, "ask"},
		{Ruleset{{Permission: "bash", Pattern: "*", Action: Deny}, {Permission: "bash", Pattern: "python *", Action: Allow}}, "allow"},
		{Ruleset{{Permission: "bash", Pattern: "*", Action: Allow}, {Permission: "bash", Pattern: "python3.12 *", Action: Deny}, {Permission: "bash", Pattern: "python *", Action: Allow}}, "deny"},
	}
	for i, tt := range tests {
		err := svc.Ask(t.Context(), tt.rules, req)
		var denied *DeniedError
		var rejected *RejectedError
		got := "allow"
		switch {
		case errors.As(err, &denied):
			got = "deny"
		case errors.As(err, &rejected):
			got = "ask"
		case err != nil:
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("case %d: %s, want %s", i, got, tt.want)
		}
	}
}
