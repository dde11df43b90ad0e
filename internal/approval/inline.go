package approval

import (
	"fmt"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
)

// unnamedInline returns the inline code of req that no allow rule naming
// its interpreter decides, in the rules or in the user's approvals: a
// catch-all rule ("*") does not count, since the code is not checked.
func unnamedInline(req permission.Request, rules, approved permission.Ruleset) []permission.Inline {
	var out []permission.Inline
	for _, in := range req.Inline {
		if !namedAllow(req.Permission, in, rules) && !namedAllow(req.Permission, in, approved) {
			out = append(out, in)
		}
	}
	return out
}

// namedAllow reports whether the rule of rules deciding in's pattern
// allows it and names its interpreter.
func namedAllow(perm string, in permission.Inline, rules permission.Ruleset) bool {
	r, ok := permission.Evaluate(perm, in.Pattern, rules)
	return ok && r.Action == permission.Allow && namesProgram(r.Pattern, in.Program)
}

// namesProgram reports whether a rule pattern starts with the program's
// name, followed by a space, a wildcard or nothing: "python3 *",
// "python3 -c *", "python3*", but not "*" or "py*".
func namesProgram(pattern, prog string) bool {
	rest, ok := strings.CutPrefix(pattern, prog)
	return ok && prog != "" && (rest == "" || rest[0] == ' ' || rest[0] == '*')
}

// inlineReason says why inline code was not approved, and how to allow it.
func inlineReason(inline []permission.Inline) string {
	in := inline[0]
	return fmt.Sprintf("%s, and code given to an interpreter cannot be checked, so it is never approved automatically; "+
		"a rule that names the interpreter allows it, such as {\"bash\": {%q: \"allow\"}}", in.Reason, in.Program+" *")
}

// allowsEverything reports whether the user's rules for perm allow
// every request: no rule of theirs that matches it asks or denies (floor
// rules included), and one of their own allows all of it. Defaults are not
// the user's rules: under them, code given to an interpreter is asked.
func allowsEverything(perm string, rules permission.Ruleset) bool {
	all := false
	for _, r := range rules {
		if r.Default || !permission.Match(perm, r.Permission) {
			continue
		}
		if r.Action != permission.Allow {
			return false
		}
		if r.Pattern == "*" {
			all = true
		}
	}
	return all
}
