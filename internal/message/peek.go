package message

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// peekString returns the string value of the top-level key in the JSON
// object b, matching keys as encoding/json does (exact or case-folded, the
// last occurrence winning), without decoding the rest of b. ok is false when
// the key is absent, its value is not a plain string, or b is not an object
// this scanner can read quickly; callers then decode b in full, which also
// reports malformed input. It spares the union decoders a second full pass
// over every stored message and part just to learn their discriminator.
func peekString(b []byte, key string) (val string, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return "", false
	}
	for i < len(b) {
		k, next, plain := scanString(b, i)
		if next < 0 || !plain {
			return "", false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return "", false
		}
		i = skipSpace(b, i+1)
		end := skipValue(b, i)
		if end < 0 {
			return "", false
		}
		if bytes.EqualFold(k, []byte(key)) {
			if b[i] != '"' {
				return "", false
			}
			s, _, plain := scanString(b, i)
			val = string(s)
			if !plain || !utf8.Valid(s) {
				// An escaped value or invalid UTF-8: let encoding/json
				// unquote it (it replaces bad bytes with U+FFFD).
				if err := json.Unmarshal(b[i:end], &val); err != nil {
					return "", false
				}
			}
			ok = true
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return "", false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return val, ok
		default:
			return "", false
		}
	}
	return "", false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString reads the JSON string starting at b[i] (a quote). It returns
// its contents (a slice of b) when they hold no escape (plain), and the
// index just after the closing quote, or -1 when b[i] does not start a
// terminated string.
func scanString(b []byte, i int) (s []byte, next int, plain bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, -1, false
	}
	plain = true
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			plain = false
			j++
		case '"':
			if plain {
				s = b[i+1 : j]
			}
			return s, j + 1, plain
		}
	}
	return nil, -1, false
}

// skipValue returns the index just after the JSON value starting at b[i],
// or -1 when it is not terminated. It checks only structure, not literals
// or numbers: the full decode that follows validates everything.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		_, next, _ := scanString(b, i)
		return next
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				_, next, _ := scanString(b, j)
				if next < 0 {
					return -1
				}
				j = next - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}
