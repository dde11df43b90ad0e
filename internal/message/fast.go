package message

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"
)

// The stored JSON of most messages and parts is small, flat and written by
// codeloop itself: a message's info, a text part, a step's start and
// finish. fastInfo and fastPart decode those shapes in one pass without
// reflection. They accept only what they fully understand: exact key names,
// strings with plain escapes, integers and numbers as encoding/json reads
// them, and no null. On anything else (an unknown or case-folded key, a
// field they do not handle, malformed input) they report false and the
// caller decodes with encoding/json, which also reports the errors.

// fastInfo decodes b, a message of the given role, into m. It reports
// false, leaving m unchanged, when b is not a shape it handles.
func fastInfo(m *Info, role Role, b []byte) bool { return fastInfoShared(m, role, b, nil) }

// fastInfoShared is fastInfo taking the values that repeat from message to
// message (session, model, agent, path, …) from strs.
func fastInfoShared(m *Info, role Role, b []byte, strs *Strings) bool {
	if role != RoleUser && role != RoleAssistant {
		return false
	}
	info := Info{Role: role}
	s := fastScanner{b: b, ok: true, strs: strs}
	user := role == RoleUser
	s.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			info.ID = s.str()
		case "sessionID":
			info.SessionID = s.shared()
		case "role":
			s.str()
		case "agent":
			info.Agent = s.shared()
		case "time":
			s.object(func(key []byte) bool {
				switch string(key) {
				case "created":
					info.Time.Created = s.int()
				case "completed":
					if user {
						return false
					}
					info.Time.Completed = s.int()
				default:
					return false
				}
				return true
			})
		default:
			if user {
				return fastUserField(&s, &info, key)
			}
			return fastAssistantField(&s, &info, key)
		}
		return true
	})
	if !s.done() {
		return false
	}
	*m = info
	return true
}

// fastUserField reads a field only a user's message has.
func fastUserField(s *fastScanner, info *Info, key []byte) bool {
	switch string(key) {
	case "system":
		info.System = s.str()
	case "model":
		s.object(func(key []byte) bool {
			switch string(key) {
			case "providerID":
				info.Model.ProviderID = s.shared()
			case "modelID":
				info.Model.ModelID = s.shared()
			case "variant":
				info.Model.Variant = s.shared()
			default:
				return false
			}
			return true
		})
	default:
		return false
	}
	return true
}

// fastAssistantField reads a field only an assistant's message has.
func fastAssistantField(s *fastScanner, info *Info, key []byte) bool {
	switch string(key) {
	case "parentID":
		info.ParentID = s.str()
	case "modelID":
		info.ModelID = s.shared()
	case "providerID":
		info.ProviderID = s.shared()
	case "mode":
		info.Mode = s.shared()
	case "variant":
		info.Variant = s.shared()
	case "finish":
		info.Finish = s.shared()
	case "summary":
		info.Summary = s.bool()
	case "cost":
		info.Cost = s.float()
	case "tokens":
		s.tokens(&info.Tokens)
	case "path":
		s.object(func(key []byte) bool {
			switch string(key) {
			case "cwd":
				info.Path.Cwd = s.shared()
			case "root":
				info.Path.Root = s.shared()
			default:
				return false
			}
			return true
		})
	default:
		return false
	}
	return true
}

// fastPart decodes b, a part of type typ, when it is a text part, a step's
// start or a step's finish of a shape it handles; it reports false
// otherwise.
func fastPart(typ string, b []byte) (Part, bool) { return fastPartShared(typ, b, nil) }

// fastPartShared is fastPart taking the values that repeat from part to
// part (session, message, snapshot, …) from strs.
func fastPartShared(typ string, b []byte, strs *Strings) (Part, bool) {
	s := fastScanner{b: b, ok: true, strs: strs}
	var (
		p    Part
		base *PartBase
		read func(key []byte) bool
	)
	switch typ {
	case TypeText:
		t := new(TextPart)
		p, base = t, &t.PartBase
		read = func(key []byte) bool {
			switch string(key) {
			case "text":
				t.Text = s.str()
			case "synthetic":
				t.Synthetic = s.bool()
			case "ignored":
				t.Ignored = s.bool()
			case "time":
				if t.Time == nil {
					t.Time = new(PartTime)
				}
				s.object(func(key []byte) bool {
					switch string(key) {
					case "start":
						t.Time.Start = s.int()
					case "end":
						t.Time.End = s.int()
					default:
						return false
					}
					return true
				})
			default:
				return false
			}
			return true
		}
	case TypeStepStart:
		t := new(StepStartPart)
		p, base = t, &t.PartBase
		read = func(key []byte) bool {
			if string(key) != "snapshot" {
				return false
			}
			t.Snapshot = s.shared()
			return true
		}
	case TypeStepFinish:
		t := new(StepFinishPart)
		p, base = t, &t.PartBase
		read = func(key []byte) bool {
			switch string(key) {
			case "reason":
				t.Reason = s.shared()
			case "snapshot":
				t.Snapshot = s.shared()
			case "cost":
				t.Cost = s.float()
			case "tokens":
				s.tokens(&t.Tokens)
			default:
				return false
			}
			return true
		}
	default:
		return nil, false
	}
	s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			s.str()
		case "id":
			base.ID = s.str()
		case "sessionID":
			base.SessionID = s.shared()
		case "messageID":
			base.MessageID = s.shared()
		default:
			return read(key)
		}
		return true
	})
	if !s.done() {
		return nil, false
	}
	return p, true
}

// fastScanner reads JSON values from b at i. Once a read fails, ok is false
// and every later read does nothing.
type fastScanner struct {
	b    []byte
	i    int
	ok   bool
	strs *Strings // shares the strings read by shared; nil shares none
}

func (s *fastScanner) fail() { s.ok = false }

func (s *fastScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// done reports whether everything was read and nothing but white space
// follows.
func (s *fastScanner) done() bool {
	s.space()
	return s.ok && s.i == len(s.b)
}

// object reads an object, calling field for each key with the scanner at
// the key's value; field reads the value, or returns false for a key it
// does not handle, which fails the scan.
func (s *fastScanner) object(field func(key []byte) bool) {
	s.space()
	if !s.ok || s.i >= len(s.b) || s.b[s.i] != '{' {
		s.fail()
		return
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return
	}
	for s.ok {
		key, ok := s.key()
		if !ok {
			s.fail()
			return
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			s.fail()
			return
		}
		s.i++
		s.space()
		if !field(key) {
			s.fail()
			return
		}
		s.space()
		if !s.ok || s.i >= len(s.b) {
			s.fail()
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
			s.fail()
			return
		}
	}
}

// key reads a key of plain ASCII letters, as every key fastInfo and
// fastPart know is, and returns it as a slice of b.
func (s *fastScanner) key() ([]byte, bool) {
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
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		default:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string. Escapes of surrogate halves, control characters and
// invalid UTF-8 fail the scan: encoding/json's replacements are left to it.
func (s *fastScanner) str() string { return s.string(false) }

// shared reads a string as str does, taking it from s.strs when it holds
// an equal one.
func (s *fastScanner) shared() string { return s.string(true) }

func (s *fastScanner) string(shared bool) string {
	s.space()
	if !s.ok || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.fail()
		return ""
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			if !ascii && !utf8.Valid(s.b[start:j]) {
				s.fail()
				return ""
			}
			if shared {
				return s.strs.bytes(s.b[start:j])
			}
			return string(s.b[start:j])
		case c == '\\':
			if shared {
				return s.strs.share(s.unescape(start, j))
			}
			return s.unescape(start, j)
		case c < 0x20:
			s.fail()
			return ""
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.fail()
	return ""
}

// unescape reads the rest of a string that starts at start and holds an
// escape at j.
func (s *fastScanner) unescape(start, j int) string {
	out := make([]byte, 0, j-start+16)
	out = append(out, s.b[start:j]...)
	for j < len(s.b) {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			if !utf8.Valid(out) {
				s.fail()
				return ""
			}
			return string(out)
		case c < 0x20:
			s.fail()
			return ""
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
				s.fail()
				return ""
			}
			r, err := strconv.ParseUint(string(s.b[j+2:j+6]), 16, 32)
			if err != nil || (r >= 0xD800 && r < 0xE000) {
				s.fail()
				return ""
			}
			out = utf8.AppendRune(out, rune(r))
			j += 6
			continue
		default:
			s.fail()
			return ""
		}
		j += 2
	}
	s.fail()
	return ""
}

// number returns the JSON number at s.i and moves past it; integer says
// whether it has neither a fraction nor an exponent.
func (s *fastScanner) number() (num []byte, integer bool) {
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
		s.fail()
		return nil, false
	}
	integer = true
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			s.fail()
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
			s.fail()
			return nil, false
		}
		integer = false
	}
	s.i = j
	return b[start:j], integer
}

// int reads an integer that fits an int64.
func (s *fastScanner) int() int64 {
	num, integer := s.number()
	if !s.ok || !integer {
		s.fail()
		return 0
	}
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	var n uint64
	for _, c := range num {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			s.fail()
			return 0
		}
		n = n*10 + d
	}
	switch {
	case !neg && n <= math.MaxInt64:
		return int64(n)
	case neg && n <= -math.MinInt64:
		return -int64(n)
	}
	s.fail()
	return 0
}

// float reads a number that fits a float64.
func (s *fastScanner) float() float64 {
	num, integer := s.number()
	if !s.ok {
		return 0
	}
	if digits := bytes.TrimPrefix(num, []byte("-")); integer && len(digits) <= 15 {
		// Integers of up to 15 digits, such as a cost of 0, are exact
		// as float64.
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
		s.fail()
	}
	return f
}

// bool reads true or false.
func (s *fastScanner) bool() bool {
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
		s.fail()
	}
	return false
}

// tokens reads a token count into t.
func (s *fastScanner) tokens(t *Tokens) {
	s.object(func(key []byte) bool {
		switch string(key) {
		case "total":
			t.Total = s.int()
		case "input":
			t.Input = s.int()
		case "output":
			t.Output = s.int()
		case "reasoning":
			t.Reasoning = s.int()
		case "cache":
			s.object(func(key []byte) bool {
				switch string(key) {
				case "read":
					t.Cache.Read = s.int()
				case "write":
					t.Cache.Write = s.int()
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
}
