// Package jsonscan reads small JSON documents of a known shape in one pass,
// for the stream decoders of the model adapters: a text delta arrives
// thousands of times per answer, and encoding/json validates each one
// before decoding it, two passes and a reflective walk for a few fields.
//
// A Scanner reads values in the order they come. The first read that finds
// something else than it expects (or anything it does not fully
// understand: an escaped surrogate, invalid UTF-8, a number too large)
// fails the scan, and every later read does nothing; the caller then
// decodes the same bytes with encoding/json instead, so the scanner only
// needs to agree with it on what it accepts.
package jsonscan

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"
)

// Scanner reads JSON values from a byte slice.
type Scanner struct {
	b  []byte
	i  int
	ok bool
}

// New returns a scanner at the start of b.
func New(b []byte) Scanner { return Scanner{b: b, ok: true} }

// OK reports whether every read so far succeeded.
func (s *Scanner) OK() bool { return s.ok }

// Fail marks the scan failed.
func (s *Scanner) Fail() { s.ok = false }

func (s *Scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Done reports whether every read succeeded and nothing but white space
// follows.
func (s *Scanner) Done() bool {
	s.space()
	return s.ok && s.i == len(s.b)
}

// Object reads an object, calling field for each key with the scanner at
// the key's value; field reads the value, or returns false for a key it
// does not handle, which fails the scan. Keys are plain ASCII letters,
// digits and underscores; any other key fails the scan.
func (s *Scanner) Object(field func(key []byte) bool) {
	if !s.expect('{') {
		return
	}
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return
	}
	for s.ok {
		key, ok := s.key()
		if !ok || !s.expect(':') {
			s.Fail()
			return
		}
		s.space()
		if !field(key) {
			s.Fail()
			return
		}
		if !s.ok {
			return
		}
		s.space()
		if s.i >= len(s.b) {
			s.Fail()
			return
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			return
		default:
			s.Fail()
			return
		}
	}
}

// Array reads an array, calling elem with the scanner at each element;
// elem reads it.
func (s *Scanner) Array(elem func()) {
	if !s.expect('[') {
		return
	}
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return
	}
	for s.ok {
		elem()
		if !s.ok {
			return
		}
		s.space()
		if s.i >= len(s.b) {
			s.Fail()
			return
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.Fail()
			return
		}
	}
}

// expect skips white space and then c.
func (s *Scanner) expect(c byte) bool {
	s.space()
	if !s.ok || s.i >= len(s.b) || s.b[s.i] != c {
		s.Fail()
		return false
	}
	s.i++
	return true
}

func (s *Scanner) key() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		default:
			return nil, false
		}
	}
	return nil, false
}

// Null reads null and reports whether it was there; anything else is left
// unread.
func (s *Scanner) Null() bool {
	s.space()
	if s.ok && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// Str reads a string. Escapes of surrogate halves, control characters and
// invalid UTF-8 fail the scan: encoding/json's replacements are left to it.
func (s *Scanner) Str() string { return s.StrFunc(nil) }

// StrFunc reads a string as Str does and returns conv of its decoded
// bytes, which conv must not keep: a decoder that shares equal strings
// looks them up without making one. A nil conv makes a new string.
func (s *Scanner) StrFunc(conv func(b []byte) string) string {
	if conv == nil {
		conv = newString
	}
	s.space()
	if !s.ok || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.Fail()
		return ""
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			if !ascii && !utf8.Valid(s.b[start:j]) {
				s.Fail()
				return ""
			}
			return conv(s.b[start:j])
		case c == '\\':
			if out := s.unescape(start, j); s.ok {
				return conv(out)
			}
			return ""
		case c < 0x20:
			s.Fail()
			return ""
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.Fail()
	return ""
}

func newString(b []byte) string { return string(b) }

// StrOrNull reads a string or null (as "").
func (s *Scanner) StrOrNull() string {
	if s.Null() {
		return ""
	}
	return s.Str()
}

// unescape reads the rest of a string that starts at start and holds an
// escape at j, and returns its decoded bytes.
func (s *Scanner) unescape(start, j int) []byte {
	out := make([]byte, 0, j-start+16)
	out = append(out, s.b[start:j]...)
	for j < len(s.b) {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			if !utf8.Valid(out) {
				s.Fail()
				return nil
			}
			return out
		case c < 0x20:
			s.Fail()
			return nil
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(s.b) {
			break
		}
		switch e := s.b[j+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if j+6 > len(s.b) {
				s.Fail()
				return nil
			}
			r, err := strconv.ParseUint(string(s.b[j+2:j+6]), 16, 32)
			if err != nil || (r >= 0xD800 && r < 0xE000) {
				s.Fail()
				return nil
			}
			out = utf8.AppendRune(out, rune(r))
			j += 6
			continue
		default:
			s.Fail()
			return nil
		}
		j += 2
	}
	s.Fail()
	return nil
}

// Int reads an integer that fits an int64 (no fraction, no exponent).
func (s *Scanner) Int() int64 {
	s.space()
	if !s.ok {
		return 0
	}
	j := s.i
	neg := j < len(s.b) && s.b[j] == '-'
	if neg {
		j++
	}
	start := j
	var n uint64
	for j < len(s.b) && '0' <= s.b[j] && s.b[j] <= '9' {
		d := uint64(s.b[j] - '0')
		if n > (math.MaxUint64-d)/10 {
			s.Fail()
			return 0
		}
		n = n*10 + d
		j++
	}
	if j == start || (s.b[start] == '0' && j-start > 1) ||
		(j < len(s.b) && (s.b[j] == '.' || s.b[j] == 'e' || s.b[j] == 'E')) {
		s.Fail()
		return 0
	}
	s.i = j
	switch {
	case !neg && n <= math.MaxInt64:
		return int64(n)
	case neg && n <= -math.MinInt64:
		return -int64(n)
	}
	s.Fail()
	return 0
}

// Skip reads a scalar the caller does not use: a string, an integer,
// true, false or null. Objects, arrays and other numbers fail the scan.
func (s *Scanner) Skip() {
	s.space()
	if !s.ok || s.i >= len(s.b) {
		s.Fail()
		return
	}
	switch c := s.b[s.i]; {
	case c == '"':
		s.Str()
	case c == '-' || '0' <= c && c <= '9':
		s.Int()
	case c == 'n':
		if !s.Null() {
			s.Fail()
		}
	case c == 't' && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
	case c == 'f' && len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
	default:
		s.Fail()
	}
}

// SkipUnknown skips the scalar value of a key the caller does not use. It
// reports false, skipping nothing, when key is a case variant of one of
// known: encoding/json would decode that key into the known field, so a
// scanner that agrees with it must not ignore it.
func (s *Scanner) SkipUnknown(key []byte, known ...string) bool {
	for _, k := range known {
		if bytes.EqualFold(key, []byte(k)) {
			return false
		}
	}
	s.Skip()
	return true
}

// number reads a JSON number and returns its text; integer says whether
// it has neither a fraction nor an exponent.
func (s *Scanner) number() (num []byte, integer bool) {
	s.space()
	if !s.ok {
		return nil, false
	}
	b, start, j := s.b, s.i, s.i
	digits := func() bool {
		k := j
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(b) && b[j] == '-' {
		j++
	}
	if j < len(b) && b[j] == '0' {
		j++
	} else if !digits() {
		s.Fail()
		return nil, false
	}
	integer = true
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			s.Fail()
			return nil, false
		}
		integer = false
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if !digits() {
			s.Fail()
			return nil, false
		}
		integer = false
	}
	s.i = j
	return b[start:j], integer
}

// Float reads a number that fits a float64.
func (s *Scanner) Float() float64 {
	num, integer := s.number()
	if !s.ok {
		return 0
	}
	if digits := bytes.TrimPrefix(num, []byte("-")); integer && len(digits) <= 15 {
		// Integers of up to 15 digits, such as a cost of 0, are exact as
		// float64.
		var n int64
		for _, c := range digits {
			n = n*10 + int64(c-'0')
		}
		f := float64(n)
		if len(digits) < len(num) {
			f = -f
		}
		return f
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		s.Fail()
	}
	return f
}

// Bool reads true or false.
func (s *Scanner) Bool() bool {
	s.space()
	switch {
	case !s.ok:
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false
	default:
		s.Fail()
	}
	return false
}
