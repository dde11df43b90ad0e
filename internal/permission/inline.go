package permission

import (
	"fmt"
	"strings"
)

// unnamedInline returns the inline code of req that no allow rule naming
// its interpreter decides, in the rules or in the user's approvals: a
// catch-all rule ("*") does not count, since the code is not checked.
func unnamedInline(req Request, rules, approved Ruleset) []Inline {
	var out []Inline
	for _, in := range req.Inline {
		if !namedAllow(req.Permission, in, rules) && !namedAllow(req.Permission, in, approved) {
			out = append(out, in)
		}
	}
	return out
}

// namedAllow reports whether the rule of rules deciding in's pattern
// allows it and names its interpreter.
func namedAllow(permission string, in Inline, rules Ruleset) bool {
	r, ok := Evaluate(permission, in.Pattern, rules)
	return ok && r.Action == Allow && namesProgram(r.Pattern, in.Program)
}

// namesProgram reports whether a rule pattern starts with the program's
// name, followed by a space, a wildcard or nothing: "python3 *",
// "python3 -c *", "python3*", but not "*" or "py*".
func namesProgram(pattern, prog string) bool {
	rest, ok := strings.CutPrefix(pattern, prog)
	return ok && prog != "" && (rest == "" || rest[0] == ' ' || rest[0] == '*')
}

// inlineReason says why inline code was not approved, and how to allow it.
func inlineReason(inline []Inline) string {
	in := inline[0]
	return fmt.Sprintf("%s, and code given to an interpreter cannot be checked, so it is never approved automatically; "+
		"a rule that names the interpreter allows it, such as {\"bash\": {%q: \"allow\"}}", in.Reason, in.Program+" *")
}

// allowsEverything reports whether the user's rules for permission allow
// every request: no rule of theirs that matches it asks or denies (floor
// rules included), and one of their own allows all of it. Defaults are not
// the user's rules: under them, code given to an interpreter is asked.
func allowsEverything(permission string, rules Ruleset) bool {
	all := false
	for _, r := range rules {
		if r.Default || !Match(permission, r.Permission) {
			continue
		}
		if r.Action != Allow {
			return false
		}
		if r.Pattern == "*" {
			all = true
		}
	}
	return all
}
