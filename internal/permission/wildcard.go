package permission

import (
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match reports whether value matches the wildcard pattern. The semantics
// are OpenCode's: backslashes on both sides count as slashes; '*' matches
// any run of characters, '/' and newlines included; '?' matches exactly one
// character; every other character stands for itself; a pattern ending in
// " *" also matches the value without that suffix (so "ls *" matches "ls"
// and "ls -la" but not "lsof"); the whole value must match. Letters are
// compared case-insensitively on Windows only.
//
// It equals the regular expression built by escaping the pattern, turning
// '*' into ".*" and '?' into ".", making a trailing " .*" optional and
// anchoring both ends with the "s" flag, but compiles nothing.
func Match(value, pattern string) bool {
	return match(value, pattern, runtime.GOOS == "windows")
}

func match(value, pattern string, fold bool) bool {
	if core, ok := strings.CutSuffix(pattern, " *"); ok {
		// "core( .*)?": the core alone, or the core, a space and anything.
		return glob(value, core, fold) || glob(value, pattern, fold)
	}
	return glob(value, pattern, fold)
}

// glob matches value against pattern where '*' is any run and '?' one
// character, comparing character by character as the regular expression
// would: each byte of invalid UTF-8 counts as one character.
func glob(value, pattern string, fold bool) bool {
	var (
		p, v         int // positions in pattern and value
		starP, starV = -1, 0
	)
	for v < len(value) {
		if p < len(pattern) {
			pc, pw := utf8.DecodeRuneInString(pattern[p:])
			switch pc {
			case '*':
				// Try the shortest run first and remember where to
				// widen it should the rest fail.
				starP, starV = p, v
				p += pw
				continue
			case '?':
				_, vw := utf8.DecodeRuneInString(value[v:])
				p += pw
				v += vw
				continue
			default:
				vc, vw := utf8.DecodeRuneInString(value[v:])
				if sameRune(pc, vc, fold) {
					p += pw
					v += vw
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last '*' swallow one more character and retry.
		_, vw := utf8.DecodeRuneInString(value[starV:])
		starV += vw
		p, v = starP+1, starV
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// sameRune compares two characters as the matcher does: a backslash is a
// slash, and with fold set letters match their other cases.
func sameRune(a, b rune, fold bool) bool {
	if a == '\\' {
		a = '/'
	}
	if b == '\\' {
		b = '/'
	}
	if a == b {
		return true
	}
	if !fold {
		return false
	}
	// Walk the simple case-folding orbit of a, as (?i) does.
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}
