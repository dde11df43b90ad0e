package approval

import (
	"errors"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
)

// TestAliasRules checks how rules apply to a program's other names: a deny
// or ask rule about the program holds, one that matches the command as
// called as well does not count twice, so a catch-all rule does not make
// an allowed command ask.
func TestAliasRules(t *testing.T) {
	svc := NewService(nil, nil, Options{NonInteractive: true})
	req := permission.Request{SessionID: "ses_1", Permission: "bash", Patterns: []string{"python -m pytest"},
		Aliases: []permission.Alias{{Pattern: "python -m pytest", As: "python3.12 -m pytest"}}}
	tests := []struct {
		rules permission.Ruleset
		want  string
	}{
		{permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Ask}, {Permission: "bash", Pattern: "python *", Action: permission.Allow}}, "allow"},
		{permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Allow}, {Permission: "bash", Pattern: "python3.12 *", Action: permission.Deny}}, "deny"},
		{permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Allow}, {Permission: "bash", Pattern: "python3* *", Action: permission.Ask}}, "ask"},
		{permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Deny}, {Permission: "bash", Pattern: "python *", Action: permission.Allow}}, "allow"},
		{permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Allow}, {Permission: "bash", Pattern: "python3.12 *", Action: permission.Deny}, {Permission: "bash", Pattern: "python *", Action: permission.Allow}}, "deny"},
	}
	for i, tt := range tests {
		err := svc.Ask(t.Context(), tt.rules, req)
		var denied *permission.DeniedError
		var rejected *permission.RejectedError
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
