package permission

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// regexMatch is the definition Match must equal: the pattern escaped, '*'
// as ".*", '?' as ".", a trailing " .*" made optional, anchored, with the
// "s" flag (and "i" when folding).
func regexMatch(value, pattern string, fold bool) bool {
	value = strings.ReplaceAll(value, `\`, "/")
	pattern = strings.ReplaceAll(pattern, `\`, "/")
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re := b.String()
	if strings.HasSuffix(re, " .*") {
		re = strings.TrimSuffix(re, " .*") + "( .*)?"
	}
	flags := "(?s)"
	if fold {
		flags = "(?si)"
	}
	return regexp.MustCompile(flags + "^" + re + "$").MatchString(value)
}

func TestMatch(t *testing.T) {
	tests := []struct {
		value, pattern string
		want           bool
	}{
		// The reference's examples.
		{"ls", "ls *", true},
		{"ls -la", "ls *", true},
		{"lsof", "ls *", false},
		{"git push", "git push *", true},
		{"git push origin main", "git push *", true},
		{"git pushx", "git push *", false},
		{"RM -rf x", "rm *", false}, // case matters off Windows
		// '*' runs across '/' and newlines.
		{"src/a/b/c.go", "src/*", true},
		{"src/a/b/c.go", "*.go", true},
		{"/home/u/.ssh/id_rsa", "/home/u/*", true},
		{"echo a\necho b", "echo *", true},
		{"", "*", true},
		{"", "", true},
		{"x", "", false},
		// '?' is exactly one character.
		{"cat a.txt", "cat ?.txt", true},
		{"cat ab.txt", "cat ?.txt", false},
		{"cat .txt", "cat ?.txt", false},
		{"é", "?", true},
		{"a\nb", "a?b", true},
		// Regular-expression characters are literal.
		{"a.b", "a.b", true},
		{"axb", "a.b", false},
		{"a+b", "a+b", true},
		{"aab", "a+b", false},
		{"(x)|[y]{2}$^", "(x)|[y]{2}$^", true},
		{"x", "(x)|[y]{2}$^", false},
		{`a\b`, "a/b", true},
		{"a/b", `a\b`, true},
		{`C:\Users\me\.env`, "*.env", true},
		// Anchored on both ends.
		{"xls -la", "ls *", false},
		{"ls -la", "ls", false},
		{"ls", "ls", true},
		// The optional " *" suffix only at the end.
		{"a", "a * b", false},
		{"a  b", "a * b", true},
		{"git", "git *", true},
		{"git ", "git *", true},
		{"gitx", "git *", false},
		{"touch", "touch *", true},
		// Defaults' read patterns.
		{"/p/.env", "*.env", true},
		{"/p/.env.local", "*.env.*", true},
		{"/p/.env.example", "*.env.example", true},
		{"/p/env", "*.env", false},
		// Several stars and backtracking.
		{"abcabcabd", "*abd", true},
		{"abcabcabc", "*abd", false},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*b", true},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "*a*a*a*a*a*b", false},
		{"mississippi", "m*iss*p?i", true},
	}
	for _, tt := range tests {
		if got := match(tt.value, tt.pattern, false); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.value, tt.pattern, got, tt.want)
		}
		if re := regexMatch(tt.value, tt.pattern, false); re != tt.want {
			t.Errorf("regex definition for (%q, %q) = %v, want %v (table wrong?)", tt.value, tt.pattern, re, tt.want)
		}
	}
}

func TestMatchFold(t *testing.T) {
	tests := []struct {
		value, pattern string
		want           bool
	}{
		{"RM -rf x", "rm *", true},
		{`C:\USERS\ME`, "c:/users/*", true},
		{"K", "\u212a", true}, // Kelvin sign folds to K
		{"straße", "STRASSE", false},
	}
	for _, tt := range tests {
		if got := match(tt.value, tt.pattern, true); got != tt.want {
			t.Errorf("match(%q, %q, fold) = %v, want %v", tt.value, tt.pattern, got, tt.want)
		}
		if re := regexMatch(tt.value, tt.pattern, true); re != tt.want {
			t.Errorf("regex definition for (%q, %q) = %v, want %v", tt.value, tt.pattern, re, tt.want)
		}
	}
}

func FuzzWildcard(f *testing.F) {
	for _, s := range [][2]string{
		{"ls -la", "ls *"}, {"lsof", "ls *"}, {"a/b/c", "a*c"}, {"a.b", "a?b"},
		{`a\b`, "a/b"}, {"x\ny", "x*"}, {"\xff", "?"}, {"\xff", "\ufffd"}, {"", " *"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, value, pattern string) {
		if !utf8.ValidString(pattern) || len(pattern) > 64 || len(value) > 256 {
			return // a regular expression cannot hold invalid UTF-8
		}
		for _, fold := range []bool{false, true} {
			if got, want := match(value, pattern, fold), regexMatch(value, pattern, fold); got != want {
				t.Fatalf("match(%q, %q, %v) = %v, the regular expression says %v", value, pattern, fold, got, want)
			}
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	for b.Loop() {
		Match("git push origin main --force", "git push *")
		Match("/home/user/project/src/internal/file.go", "*.env.*")
	}
}

func BenchmarkMatchRegexp(b *testing.B) {
	for b.Loop() {
		regexMatch("git push origin main --force", "git push *", false)
		regexMatch("/home/user/project/src/internal/file.go", "*.env.*", false)
	}
}
