package local

import (
	"fmt"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/permission"
)

// sessionLayer is the floor layer of the rules clients send with a
// session, evaluated apart from an untrusted project's.
const sessionLayer = "session"

// floorRules turns the rules a client sends with a new session into floor
// rules, which can only tighten the user's: a client's deny and ask rules
// apply, its allow rules never loosen anything (see permission.Evaluate).
func floorRules(in []client.PermissionRule) (permission.Ruleset, error) {
	out := make(permission.Ruleset, 0, len(in))
	for i, r := range in {
		switch a := permission.Action(r.Action); a {
		case permission.Allow, permission.Ask, permission.Deny:
		default:
			return nil, fmt.Errorf("permission rule %d: action %q: want allow, ask or deny", i, r.Action)
		}
		if r.Permission == "" || r.Pattern == "" {
			return nil, fmt.Errorf("permission rule %d: permission and pattern are required", i)
		}
		out = append(out, permission.Rule{Permission: r.Permission, Pattern: r.Pattern, Action: permission.Action(r.Action), Floor: true, Layer: sessionLayer})
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
