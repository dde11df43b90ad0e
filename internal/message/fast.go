package message

import "github.com/codeloop/codeloop/internal/llm/jsonscan"

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
	s := fastScanner{Scanner: jsonscan.New(b), strs: strs}
	user := role == RoleUser
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			info.ID = s.Str()
		case "sessionID":
			info.SessionID = s.shared()
		case "role":
			s.Str()
		case "agent":
			info.Agent = s.shared()
		case "time":
			s.Object(func(key []byte) bool {
				switch string(key) {
				case "created":
					info.Time.Created = s.Int()
				case "completed":
					if user {
						return false
					}
					info.Time.Completed = s.Int()
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
	if !s.Done() {
		return false
	}
	*m = info
	return true
}

// fastUserField reads a field only a user's message has.
func fastUserField(s *fastScanner, info *Info, key []byte) bool {
	switch string(key) {
	case "system":
		info.extra().System = s.Str()
	case "model":
		s.Object(func(key []byte) bool {
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
		info.ParentID = s.Str()
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
		info.Summary = s.Bool()
	case "cost":
		info.Cost = s.Float()
	case "tokens":
		s.tokens(&info.Tokens)
	case "path":
		s.Object(func(key []byte) bool {
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
	s := fastScanner{Scanner: jsonscan.New(b), strs: strs}
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
				t.Text = s.Str()
			case "synthetic":
				t.Synthetic = s.Bool()
			case "ignored":
				t.Ignored = s.Bool()
			case "time":
				if t.Time == nil {
					t.Time = new(PartTime)
				}
				s.Object(func(key []byte) bool {
					switch string(key) {
					case "start":
						t.Time.Start = s.Int()
					case "end":
						t.Time.End = s.Int()
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
				t.Cost = s.Float()
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
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			s.Str()
		case "id":
			base.ID = s.Str()
		case "sessionID":
			base.SessionID = s.shared()
		case "messageID":
			base.MessageID = s.shared()
		default:
			return read(key)
		}
		return true
	})
	if !s.Done() {
		return nil, false
	}
	return p, true
}

// fastScanner is a jsonscan.Scanner that shares the strings read by
// shared through strs (nil shares none).
type fastScanner struct {
	jsonscan.Scanner
	strs *Strings
}

// shared reads a string as Str does, taking it from s.strs when it holds
// an equal one.
func (s *fastScanner) shared() string { return s.StrFunc(s.strs.bytes) }

// tokens reads a token count into t.
func (s *fastScanner) tokens(t *Tokens) {
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "total":
			t.Total = s.Int()
		case "input":
			t.Input = s.Int()
		case "output":
			t.Output = s.Int()
		case "reasoning":
			t.Reasoning = s.Int()
		case "cache":
			s.Object(func(key []byte) bool {
				switch string(key) {
				case "read":
					t.Cache.Read = s.Int()
				case "write":
					t.Cache.Write = s.Int()
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
