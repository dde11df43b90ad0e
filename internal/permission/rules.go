package permission

import (
	"slices"
)

// Evaluate returns the rule that decides permission for value: the last rule
// across the rulesets, taken in order, whose Permission matches permission
// and whose Pattern matches value. When none does it returns an ask rule for
// everything and false.
//
// Floor rules (those of a project the user has not trusted, and those a
// client sent with a session) are evaluated apart: in each of their
// layers the last matching floor rule wins over the others only when its
// action is stricter (deny over ask over allow), so such rules can tighten
// the user's rules and never loosen them.
func Evaluate(permission, value string, rulesets ...Ruleset) (Rule, bool) {
	var found Rule
	ok := false
	var floors []Rule // the last matching floor rule of each layer
	decided := func(layer string) bool {
		return slices.ContainsFunc(floors, func(f Rule) bool { return f.Layer == layer })
	}
	for i := len(rulesets) - 1; i >= 0; i-- {
		rs := rulesets[i]
		for j := len(rs) - 1; j >= 0; j-- {
			r := rs[j]
			if (r.Floor && decided(r.Layer)) || (!r.Floor && ok) {
				continue
			}
			if Match(permission, r.Permission) && Match(value, r.Pattern) {
				if r.Floor {
					floors = append(floors, r)
				} else {
					found, ok = r, true
				}
			}
		}
	}
	if !ok {
		found = Rule{Permission: permission, Pattern: "*", Action: Ask}
	}
	for _, f := range floors {
		if strictness(f.Action) > strictness(found.Action) {
			found, ok = f, true
		}
	}
	return found, ok
}

// strictness orders actions: allow, ask, deny.
func strictness(a Action) int {
	switch a {
	case Deny:
		return 2
	case Ask:
		return 1
	}
	return 0
}

// Merge joins rulesets into one; rules of later rulesets take precedence.
func Merge(rulesets ...Ruleset) Ruleset {
	n := 0
	for _, rs := range rulesets {
		n += len(rs)
	}
	out := make(Ruleset, 0, n)
	for _, rs := range rulesets {
		out = append(out, rs...)
	}
	return out
}

// FromTools turns the deprecated "tools" map (tool name to enabled) into
// allow and deny rules for everything, in name order. The tools that change
// files (write, edit, patch, multiedit, apply_patch) all map to "edit".
// Place the result before the permission section's rules, which override
// it.
func FromTools(tools map[string]bool) Ruleset {
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	slices.Sort(names)
	var out Ruleset
	for _, name := range names {
		action := Deny
		if tools[name] {
			action = Allow
		}
		out = append(out, Rule{Permission: ToolPermission(name), Pattern: "*", Action: action})
	}
	return out
}

// ToolPermission is the permission name a tool asks under: the tools that
// change files share "edit", every other tool asks under its own id.
func ToolPermission(tool string) string {
	switch tool {
	case "write", "edit", "patch", "multiedit", "apply_patch":
		return "edit"
	}
	return tool
}

// Disabled reports which of tools the ruleset turns off entirely, so they
// are not offered to the model: those whose last rule for their permission
// name (see ToolPermission) denies pattern "*".
func Disabled(tools []string, rs Ruleset) map[string]bool {
	out := make(map[string]bool)
	for _, tool := range tools {
		perm := ToolPermission(tool)
		var decided []string // "" for the user's rules, "floor:LAYER" for a floor layer
		for i := len(rs) - 1; i >= 0; i-- {
			key := ""
			if rs[i].Floor {
				key = "floor:" + rs[i].Layer
			}
			if slices.Contains(decided, key) || !Match(perm, rs[i].Permission) {
				continue
			}
			decided = append(decided, key)
			if rs[i].Pattern == "*" && rs[i].Action == Deny {
				out[tool] = true
			}
		}
	}
	return out
}
