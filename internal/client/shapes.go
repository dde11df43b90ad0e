package client

import "encoding/json"

// MarshalJSON encodes the message as OpenCode does: an assistant message
// always carries its cost and tokens, zero as they may be.
func (m MessageInfo) MarshalJSON() ([]byte, error) {
	type plain MessageInfo
	if m.Role != RoleAssistant {
		return json.Marshal(plain(m))
	}
	tokens := m.Tokens
	if tokens == nil {
		tokens = &Tokens{}
	}
	return json.Marshal(struct {
		plain
		Cost   float64 `json:"cost"`
		Tokens *Tokens `json:"tokens"`
	}{plain(m), m.Cost, tokens})
}

// sessionEvent is the properties of session.created, .updated and
// .deleted: OpenCode's carry the session's id beside its record.
type sessionEvent struct {
	SessionID string  `json:"sessionID"`
	Info      Session `json:"info"`
}

// MarshalJSON encodes the event's properties with the session's id.
func (e SessionCreatedEvent) MarshalJSON() ([]byte, error) {
	return json.Marshal(sessionEvent{e.Info.ID, e.Info})
}

// MarshalJSON encodes the event's properties with the session's id.
func (e SessionUpdatedEvent) MarshalJSON() ([]byte, error) {
	return json.Marshal(sessionEvent{e.Info.ID, e.Info})
}

// MarshalJSON encodes the event's properties with the session's id.
func (e SessionDeletedEvent) MarshalJSON() ([]byte, error) {
	return json.Marshal(sessionEvent{e.Info.ID, e.Info})
}

// MarshalJSON encodes the event's properties with the session's id, as
// OpenCode's message.updated has it.
func (e MessageUpdatedEvent) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		SessionID string      `json:"sessionID"`
		Info      MessageInfo `json:"info"`
	}{e.Info.SessionID, e.Info})
}

// MarshalJSON encodes the event's properties with the session's id, as
// OpenCode's message.part.updated has it.
func (e PartUpdatedEvent) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		SessionID string `json:"sessionID"`
		Part      Part   `json:"part"`
	}{e.Part.SessionID, e.Part})
}

// MarshalJSON encodes the request with its metadata, patterns and always
// patterns present, empty as they may be, as OpenCode's clients read them.
func (r PermissionRequest) MarshalJSON() ([]byte, error) {
	type plain PermissionRequest
	if r.Metadata == nil {
		r.Metadata = map[string]any{}
	}
	if r.Patterns == nil {
		r.Patterns = []string{}
	}
	if r.Always == nil {
		r.Always = []string{}
	}
	return json.Marshal(struct {
		plain
		Metadata map[string]any `json:"metadata"`
	}{plain(r), r.Metadata})
}

// MarshalJSON encodes the part with the fields its type always has in
// OpenCode's shape, zero as they may be: a step-finish part's cost and a
// compaction part's auto.
func (p Part) MarshalJSON() ([]byte, error) {
	type plain Part
	b, err := json.Marshal(plain(p))
	if err != nil {
		return nil, err
	}
	var extra string
	switch {
	case p.Type == PartStepFinish && p.Cost == 0:
		extra = `,"cost":0`
	case p.Type == PartCompaction && !p.Auto:
		extra = `,"auto":false`
	case (p.Type == PartText || p.Type == PartReasoning) && p.Text == "":
		extra = `,"text":""` // OpenCode's interface reads text as a string
	}
	if extra == "" {
		return b, nil
	}
	return append(b[:len(b)-1], extra+"}"...), nil
}
