// Package message is the model of a conversation as codeloop stores it:
// message infos (user and assistant), the part union (text, reasoning, file,
// tool, step markers, snapshot, patch, agent, subtask, retry, compaction),
// the error kinds an assistant message may end with, their JSON encoding, and
// the conversion of a history into the provider-neutral llm messages a model
// is sent.
//
// The JSON shapes and field names are OpenCode's, so a session exported by
// OpenCode imports into codeloop and a codeloop export reads in OpenCode.
//
// It imports llm and nothing else of codeloop's; the session engine, the
// store's users and the front ends import it.
package message

import (
	"encoding/json"
	"fmt"
)

// Role is the author of a message.
type Role string

// The roles of stored messages.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Info is a message's record without its parts. Role selects the fields in
// use: the user fields (Model and Extra) or the assistant fields (ParentID
// through Error). ID, SessionID, Role, Time and Agent belong to both. Its
// JSON form is OpenCode's user or assistant message, chosen by Role.
type Info struct {
	ID        string
	SessionID string
	Role      Role
	Time      Time
	Agent     string

	// User message fields.
	Model ModelRef
	// Extra holds what few user messages set; nil when they set none of it.
	Extra *UserExtra

	// Assistant message fields.
	ParentID   string
	ModelID    string
	ProviderID string
	Mode       string
	Path       Path
	Summary    bool // the message is a compaction summary
	Cost       float64
	Tokens     Tokens
	Structured json.RawMessage
	Variant    string
	Finish     string
	Error      *Error
}

// UserExtra is the part of a user message's info that few messages set.
type UserExtra struct {
	Format  json.RawMessage // {"type":"text"} or {"type":"json_schema",...}
	Summary *UserSummary
	// System is text added to the system prompt for this message's answer.
	System string
	// Tools switches tools on or off for this message's answer.
	Tools map[string]bool
	// Permission holds rules (a permission.Ruleset in JSON) that apply
	// while this message is answered only: a command's allowed tools.
	Permission json.RawMessage
}

// IsZero reports whether x sets nothing.
func (x *UserExtra) IsZero() bool {
	return x.Format == nil && x.Summary == nil && x.System == "" && x.Tools == nil && x.Permission == nil
}

// System returns the text a user message adds to the system prompt for its
// answer.
func (m *Info) System() string {
	if m.Extra == nil {
		return ""
	}
	return m.Extra.System
}

// Tools returns the tools a user message switches on or off for its
// answer.
func (m *Info) Tools() map[string]bool {
	if m.Extra == nil {
		return nil
	}
	return m.Extra.Tools
}

// Permission returns the rules (a permission.Ruleset in JSON) a user
// message holds for its own answer.
func (m *Info) Permission() json.RawMessage {
	if m.Extra == nil {
		return nil
	}
	return m.Extra.Permission
}

// extra returns m's Extra, making it when m has none.
func (m *Info) extra() *UserExtra {
	if m.Extra == nil {
		m.Extra = new(UserExtra)
	}
	return m.Extra
}

// userExtra returns the Extra of a decoded user message: nil when it sets
// nothing.
func userExtra(u *userJSON) *UserExtra {
	x := UserExtra{Format: u.Format, Summary: u.Summary, System: u.System, Tools: u.Tools, Permission: u.Permission}
	if x.IsZero() {
		return nil
	}
	return &x
}

// Time holds a message's creation and, for an assistant, completion time in
// Unix milliseconds.
type Time struct {
	Created   int64 `json:"created"`
	Completed int64 `json:"completed,omitempty"`
}

// ModelRef names the model a user message is addressed to.
type ModelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
	Variant    string `json:"variant,omitempty"`
}

// String is "provider/model".
func (m ModelRef) String() string { return m.ProviderID + "/" + m.ModelID }

// UserSummary is the per-prompt summary of changes OpenCode keeps on a user
// message. Diffs are kept as written.
type UserSummary struct {
	Title string            `json:"title,omitempty"`
	Body  string            `json:"body,omitempty"`
	Diffs []json.RawMessage `json:"diffs"`
}

// Path is where an assistant message ran: the working directory and the
// project root.
type Path struct {
	Cwd  string `json:"cwd"`
	Root string `json:"root"`
}

// Tokens counts the tokens of a step or a message. Input excludes cached
// tokens and Output excludes reasoning tokens.
type Tokens struct {
	Total     int64       `json:"total,omitempty"`
	Input     int64       `json:"input"`
	Output    int64       `json:"output"`
	Reasoning int64       `json:"reasoning"`
	Cache     TokensCache `json:"cache"`
}

// TokensCache counts cached prompt tokens read and written.
type TokensCache struct {
	Read  int64 `json:"read"`
	Write int64 `json:"write"`
}

// Add returns the sum of t and u. Total is kept only when both have one.
func (t Tokens) Add(u Tokens) Tokens {
	r := Tokens{
		Input:     t.Input + u.Input,
		Output:    t.Output + u.Output,
		Reasoning: t.Reasoning + u.Reasoning,
		Cache:     TokensCache{Read: t.Cache.Read + u.Cache.Read, Write: t.Cache.Write + u.Cache.Write},
	}
	if t.Total != 0 && u.Total != 0 {
		r.Total = t.Total + u.Total
	}
	return r
}

// Count is the number of tokens the context held: Total when the provider
// reported one, else the sum of the parts.
func (t Tokens) Count() int64 {
	if t.Total != 0 {
		return t.Total
	}
	return t.Input + t.Output + t.Reasoning + t.Cache.Read + t.Cache.Write
}

type userJSON struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionID"`
	Role      Role            `json:"role"`
	Time      userTime        `json:"time"`
	Summary   *UserSummary    `json:"summary,omitempty"`
	Format    json.RawMessage `json:"format,omitempty"`
	Agent     string          `json:"agent"`
	Model     ModelRef        `json:"model"`
	System    string          `json:"system,omitempty"`
	Tools     map[string]bool `json:"tools,omitempty"`
	// Permission is codeloop's: the rules of this turn only.
	Permission json.RawMessage `json:"permission,omitempty"`
}

type userTime struct {
	Created int64 `json:"created"`
}

type assistantJSON struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Role       Role            `json:"role"`
	Time       Time            `json:"time"`
	Error      *Error          `json:"error,omitempty"`
	ParentID   string          `json:"parentID"`
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Mode       string          `json:"mode"`
	Agent      string          `json:"agent"`
	Path       Path            `json:"path"`
	Summary    bool            `json:"summary,omitempty"`
	Cost       float64         `json:"cost"`
	Tokens     Tokens          `json:"tokens"`
	Structured json.RawMessage `json:"structured,omitempty"`
	Variant    string          `json:"variant,omitempty"`
	Finish     string          `json:"finish,omitempty"`
}

// MarshalJSON encodes the info as OpenCode's user or assistant message.
func (m Info) MarshalJSON() ([]byte, error) {
	switch m.Role {
	case RoleUser:
		u := userJSON{
			ID: m.ID, SessionID: m.SessionID, Role: m.Role, Time: userTime{m.Time.Created},
			Agent: m.Agent, Model: m.Model,
		}
		if x := m.Extra; x != nil {
			u.Summary, u.Format, u.System, u.Tools, u.Permission = x.Summary, x.Format, x.System, x.Tools, x.Permission
		}
		return json.Marshal(u)
	case RoleAssistant:
		return json.Marshal(assistantJSON{
			ID: m.ID, SessionID: m.SessionID, Role: m.Role, Time: m.Time, Error: m.Error,
			ParentID: m.ParentID, ModelID: m.ModelID, ProviderID: m.ProviderID, Mode: m.Mode,
			Agent: m.Agent, Path: m.Path, Summary: m.Summary, Cost: m.Cost, Tokens: m.Tokens,
			Structured: m.Structured, Variant: m.Variant, Finish: m.Finish,
		})
	}
	return nil, fmt.Errorf("message %s: unknown role %q", m.ID, m.Role)
}

// UnmarshalJSON decodes OpenCode's user or assistant message.
func (m *Info) UnmarshalJSON(b []byte) error { return m.Decode(b, nil) }

// Decode decodes b as UnmarshalJSON does, taking the values that repeat
// from message to message (session, model, agent, path, …) from strs when
// it holds them; a nil strs shares nothing.
func (m *Info) Decode(b []byte, strs *Strings) error {
	role, ok := peekString(b, "role")
	if !ok {
		var head struct {
			Role Role `json:"role"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return err
		}
		role = string(head.Role)
	}
	if fastInfoShared(m, Role(role), b, strs) {
		return nil
	}
	return m.decode(role, b)
}

// decode decodes b, a message whose role is role, with encoding/json.
func (m *Info) decode(role string, b []byte) error {
	switch Role(role) {
	case RoleUser:
		var u userJSON
		if err := json.Unmarshal(b, &u); err != nil {
			return fmt.Errorf("user message: %w", err)
		}
		*m = Info{
			ID: u.ID, SessionID: u.SessionID, Role: RoleUser, Time: Time{Created: u.Time.Created},
			Agent: u.Agent, Model: u.Model, Extra: userExtra(&u),
		}
	case RoleAssistant:
		var a assistantJSON
		if err := json.Unmarshal(b, &a); err != nil {
			return fmt.Errorf("assistant message: %w", err)
		}
		*m = Info{
			ID: a.ID, SessionID: a.SessionID, Role: RoleAssistant, Time: a.Time, Error: a.Error,
			ParentID: a.ParentID, ModelID: a.ModelID, ProviderID: a.ProviderID, Mode: a.Mode,
			Agent: a.Agent, Path: a.Path, Summary: a.Summary, Cost: a.Cost, Tokens: a.Tokens,
			Structured: a.Structured, Variant: a.Variant, Finish: a.Finish,
		}
	default:
		return fmt.Errorf("message has unknown role %q", role)
	}
	return nil
}

// Message is a message's info with its parts in id order.
type Message struct {
	Info  Info   `json:"info"`
	Parts []Part `json:"parts"`
}

// UnmarshalJSON decodes {info, parts} with the part union.
func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Info  Info              `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Info = raw.Info
	m.Parts = make([]Part, 0, len(raw.Parts))
	for i, r := range raw.Parts {
		p, err := UnmarshalPart(r)
		if err != nil {
			return fmt.Errorf("message %s part %d: %w", raw.Info.ID, i, err)
		}
		m.Parts = append(m.Parts, p)
	}
	return nil
}
