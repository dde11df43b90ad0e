package local

import (
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/permission"
)

// fromRules converts the rules a client sends with a session; the app
// checks them and makes them floor rules (app.FloorRules).
func fromRules(in []client.PermissionRule) permission.Ruleset {
	out := make(permission.Ruleset, 0, len(in))
	for _, r := range in {
		out = append(out, permission.Rule{Permission: r.Permission, Pattern: r.Pattern, Action: permission.Action(r.Action)})
	}
	return out
}
