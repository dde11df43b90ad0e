package hook

import (
	"fmt"
	"regexp"
	"strings"
)

// matcher selects the tools (or, for other events, the sources, reasons
// and notification types) a group of hooks runs for, as Claude Code reads
// a matcher: empty or "*" matches everything; a value made only of
// letters, digits, '_', '-', spaces, ',' and '|' is a list of exact names;
// anything else is a regular expression matched anywhere in the name.
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

func compileMatcher(s string) (matcher, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return matcher{all: true}, nil
	}
	if plainList(s) {
		var names []string
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
			if f = strings.TrimSpace(f); f != "" {
				names = append(names, f)
			}
		}
		return matcher{names: names}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, fmt.Errorf("matcher %q is not a regular expression codeloop can read "+
			"(lookaround and backreferences are not supported): %w", s, err)
	}
	return matcher{re: re}, nil
}

func plainList(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '_', r == '-', r == ' ', r == ',', r == '|':
		default:
			return false
		}
	}
	return true
}

// match reports whether any of the names matches.
func (m matcher) match(names ...string) bool {
	if m.all {
		return true
	}
	for _, n := range names {
		if m.re != nil {
			if m.re.MatchString(n) {
				return true
			}
			continue
		}
		for _, want := range m.names {
			if want == n {
				return true
			}
		}
	}
	return false
}
