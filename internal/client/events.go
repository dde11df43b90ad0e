package client

import (
	"encoding/json"
	"fmt"
)

// Event names, as OpenCode's event stream spells them.
const (
	TypeSessionCreated    = "session.created"
	TypeSessionUpdated    = "session.updated"
	TypeSessionDeleted    = "session.deleted"
	TypeSessionStatus     = "session.status"
	TypeSessionError      = "session.error"
	TypeSessionCompacted  = "session.compacted"
	TypeSessionIdle       = "session.idle"
	TypeTurnEnded         = "session.turn.ended"
	TypeMessageUpdated    = "message.updated"
	TypeMessageRemoved    = "message.removed"
	TypePartUpdated       = "message.part.updated"
	TypePartDelta         = "message.part.delta"
	TypePartRemoved       = "message.part.removed"
	TypePermissionAsked   = "permission.asked"
	TypePermissionReplied = "permission.replied"
	TypeQuestionAsked     = "question.asked"
	TypeQuestionReplied   = "question.replied"
	TypeQuestionRejected  = "question.rejected"
	TypeTodoUpdated       = "todo.updated"
	TypeHookNotice        = "hook.notice"
	// TypeEventsDropped is the client's own: events were lost because the
	// reader fell behind, and what it shows may be stale until it reloads.
	TypeEventsDropped = "client.events.dropped"
)

// Event is one event of the engine: a value of one of the *Event types of
// this package. Type is its name; Session the id of the session it
// concerns, empty when none.
type Event interface {
	Type() string
	Session() string
}

// EventFilter selects events. Zero fields select everything. Events
// about a permission or a question carry the session that asked, which is
// a child session when a sub-agent asks.
type EventFilter struct {
	SessionID string   `json:"sessionID,omitempty"`
	Types     []string `json:"types,omitempty"`
}

// Match reports whether f selects e. TypeEventsDropped always matches.
func (f EventFilter) Match(e Event) bool {
	if e.Type() == TypeEventsDropped {
		return true
	}
	if f.SessionID != "" && e.Session() != f.SessionID {
		return false
	}
	if len(f.Types) == 0 {
		return true
	}
	for _, t := range f.Types {
		if t == e.Type() {
			return true
		}
	}
	return false
}

// SessionCreatedEvent: a session was created.
type SessionCreatedEvent struct {
	Info Session `json:"info"`
}

// SessionUpdatedEvent: a session's record changed.
type SessionUpdatedEvent struct {
	Info Session `json:"info"`
}

// SessionDeletedEvent: a session was deleted.
type SessionDeletedEvent struct {
	Info Session `json:"info"`
}

// SessionStatusEvent: a session's status changed.
type SessionStatusEvent struct {
	SessionID string        `json:"sessionID"`
	Status    SessionStatus `json:"status"`
}

// SessionErrorEvent: a session's run ended with an error.
type SessionErrorEvent struct {
	SessionID string        `json:"sessionID,omitempty"`
	Error     *MessageError `json:"error,omitempty"`
}

// SessionCompactedEvent: a session's history was summarised.
type SessionCompactedEvent struct {
	SessionID string `json:"sessionID"`
}

// MessageUpdatedEvent: a message's record was stored.
type MessageUpdatedEvent struct {
	Info MessageInfo `json:"info"`
}

// SessionIdleEvent: nothing runs for the session any more (OpenCode's
// session.idle, sent beside session.status).
type SessionIdleEvent struct {
	SessionID string `json:"sessionID"`
}

// TurnEndedEvent: a turn of the session ended, and why: "completed",
// "aborted", "error" (Error says which), "rejected" (a permission or a
// question was refused), "max_steps", "length", "content_filter", "empty"
// (no text and no tool call), "attachment_failed" (Detail names the file)
// or "stopped" (by a hook). codeloop's own event.
type TurnEndedEvent struct {
	SessionID string        `json:"sessionID"`
	Reason    string        `json:"reason"`
	Error     *MessageError `json:"error,omitempty"`
	Detail    string        `json:"detail,omitempty"`
}

// The reasons of TurnEndedEvent.
const (
	TurnCompleted        = "completed"
	TurnAborted          = "aborted"
	TurnError            = "error"
	TurnRejected         = "rejected"
	TurnMaxSteps         = "max_steps"
	TurnLength           = "length"
	TurnContentFilter    = "content_filter"
	TurnEmpty            = "empty"
	TurnAttachmentFailed = "attachment_failed"
	TurnStopped          = "stopped"
)

// MessageRemovedEvent: a message was removed.
type MessageRemovedEvent struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
}

// PartUpdatedEvent: a part was stored; Part is its whole new state.
type PartUpdatedEvent struct {
	Part Part `json:"part"`
}

// PartDeltaEvent: text was appended to Field ("text") of a part. Deltas
// may be dropped under load; the part's next PartUpdatedEvent carries the
// whole text.
type PartDeltaEvent struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	PartID    string `json:"partID"`
	Field     string `json:"field"`
	Delta     string `json:"delta"`
}

// PartRemovedEvent: a part was removed.
type PartRemovedEvent struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	PartID    string `json:"partID"`
}

// PermissionAskedEvent: a permission request waits for a reply.
type PermissionAskedEvent struct {
	PermissionRequest
}

// PermissionRepliedEvent: a permission request was answered.
type PermissionRepliedEvent struct {
	SessionID string `json:"sessionID"`
	RequestID string `json:"requestID"`
	Reply     string `json:"reply"`
}

// QuestionAskedEvent: questions wait for an answer.
type QuestionAskedEvent struct {
	QuestionRequest
}

// QuestionRepliedEvent: questions were answered.
type QuestionRepliedEvent struct {
	SessionID string     `json:"sessionID"`
	RequestID string     `json:"requestID"`
	Answers   [][]string `json:"answers"`
}

// QuestionRejectedEvent: questions were dismissed.
type QuestionRejectedEvent struct {
	SessionID string `json:"sessionID"`
	RequestID string `json:"requestID"`
}

// TodoUpdatedEvent: a session's todo list was replaced.
type TodoUpdatedEvent struct {
	SessionID string `json:"sessionID"`
	Todos     []Todo `json:"todos"`
}

// HookNoticeEvent: a user's hook has something to say: a failure, a
// timeout, or a message it printed for the user. SessionID is empty for
// a hook run outside a session.
type HookNoticeEvent struct {
	SessionID string `json:"sessionID,omitempty"`
	// Event is the hook event (PreToolUse, Stop, ...); Command the hook's
	// command and Origin the file that defines it.
	Event   string `json:"event"`
	Command string `json:"command"`
	Origin  string `json:"origin,omitempty"`
	// Error marks a failure; otherwise Text is a message for the user.
	Error bool   `json:"error"`
	Text  string `json:"text"`
}

// String is the notice as one line for people.
func (e HookNoticeEvent) String() string {
	if e.Error {
		return fmt.Sprintf("%s hook %q %s", e.Event, e.Command, e.Text)
	}
	return fmt.Sprintf("%s hook: %s", e.Event, e.Text)
}

// EventsDroppedEvent: Count events were lost since the last one read.
type EventsDroppedEvent struct {
	Count int64 `json:"count"`
}

func (SessionCreatedEvent) Type() string    { return TypeSessionCreated }
func (SessionUpdatedEvent) Type() string    { return TypeSessionUpdated }
func (SessionDeletedEvent) Type() string    { return TypeSessionDeleted }
func (SessionStatusEvent) Type() string     { return TypeSessionStatus }
func (SessionErrorEvent) Type() string      { return TypeSessionError }
func (SessionCompactedEvent) Type() string  { return TypeSessionCompacted }
func (SessionIdleEvent) Type() string       { return TypeSessionIdle }
func (TurnEndedEvent) Type() string         { return TypeTurnEnded }
func (MessageUpdatedEvent) Type() string    { return TypeMessageUpdated }
func (MessageRemovedEvent) Type() string    { return TypeMessageRemoved }
func (PartUpdatedEvent) Type() string       { return TypePartUpdated }
func (PartDeltaEvent) Type() string         { return TypePartDelta }
func (PartRemovedEvent) Type() string       { return TypePartRemoved }
func (PermissionAskedEvent) Type() string   { return TypePermissionAsked }
func (PermissionRepliedEvent) Type() string { return TypePermissionReplied }
func (QuestionAskedEvent) Type() string     { return TypeQuestionAsked }
func (QuestionRepliedEvent) Type() string   { return TypeQuestionReplied }
func (QuestionRejectedEvent) Type() string  { return TypeQuestionRejected }
func (TodoUpdatedEvent) Type() string       { return TypeTodoUpdated }
func (HookNoticeEvent) Type() string        { return TypeHookNotice }
func (EventsDroppedEvent) Type() string     { return TypeEventsDropped }

func (e SessionCreatedEvent) Session() string    { return e.Info.ID }
func (e SessionUpdatedEvent) Session() string    { return e.Info.ID }
func (e SessionDeletedEvent) Session() string    { return e.Info.ID }
func (e SessionStatusEvent) Session() string     { return e.SessionID }
func (e SessionErrorEvent) Session() string      { return e.SessionID }
func (e SessionCompactedEvent) Session() string  { return e.SessionID }
func (e SessionIdleEvent) Session() string       { return e.SessionID }
func (e TurnEndedEvent) Session() string         { return e.SessionID }
func (e MessageUpdatedEvent) Session() string    { return e.Info.SessionID }
func (e MessageRemovedEvent) Session() string    { return e.SessionID }
func (e PartUpdatedEvent) Session() string       { return e.Part.SessionID }
func (e PartDeltaEvent) Session() string         { return e.SessionID }
func (e PartRemovedEvent) Session() string       { return e.SessionID }
func (e PermissionAskedEvent) Session() string   { return e.SessionID }
func (e PermissionRepliedEvent) Session() string { return e.SessionID }
func (e QuestionAskedEvent) Session() string     { return e.SessionID }
func (e QuestionRepliedEvent) Session() string   { return e.SessionID }
func (e QuestionRejectedEvent) Session() string  { return e.SessionID }
func (e TodoUpdatedEvent) Session() string       { return e.SessionID }
func (e HookNoticeEvent) Session() string        { return e.SessionID }
func (EventsDroppedEvent) Session() string       { return "" }

// wireEvent is an event on OpenCode's stream.
type wireEvent struct {
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
}

// MarshalEvent encodes e as OpenCode's {"type", "properties"}.
func MarshalEvent(e Event) ([]byte, error) {
	props, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encoding %s event: %w", e.Type(), err)
	}
	return json.Marshal(wireEvent{Type: e.Type(), Properties: props})
}

// UnmarshalEvent decodes OpenCode's {"type", "properties"}. An event of a
// type this package does not know decodes to (nil, nil), so a newer
// server's events are skipped rather than fatal.
func UnmarshalEvent(data []byte) (Event, error) {
	var w wireEvent
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("decoding an event: %w", err)
	}
	var e Event
	var err error
	switch w.Type {
	case TypeSessionCreated:
		e, err = decode[SessionCreatedEvent](w.Properties)
	case TypeSessionUpdated:
		e, err = decode[SessionUpdatedEvent](w.Properties)
	case TypeSessionDeleted:
		e, err = decode[SessionDeletedEvent](w.Properties)
	case TypeSessionStatus:
		e, err = decode[SessionStatusEvent](w.Properties)
	case TypeSessionError:
		e, err = decode[SessionErrorEvent](w.Properties)
	case TypeSessionCompacted:
		e, err = decode[SessionCompactedEvent](w.Properties)
	case TypeSessionIdle:
		e, err = decode[SessionIdleEvent](w.Properties)
	case TypeTurnEnded:
		e, err = decode[TurnEndedEvent](w.Properties)
	case TypeMessageUpdated:
		e, err = decode[MessageUpdatedEvent](w.Properties)
	case TypeMessageRemoved:
		e, err = decode[MessageRemovedEvent](w.Properties)
	case TypePartUpdated:
		e, err = decode[PartUpdatedEvent](w.Properties)
	case TypePartDelta:
		e, err = decode[PartDeltaEvent](w.Properties)
	case TypePartRemoved:
		e, err = decode[PartRemovedEvent](w.Properties)
	case TypePermissionAsked:
		e, err = decode[PermissionAskedEvent](w.Properties)
	case TypePermissionReplied:
		e, err = decode[PermissionRepliedEvent](w.Properties)
	case TypeQuestionAsked:
		e, err = decode[QuestionAskedEvent](w.Properties)
	case TypeQuestionReplied:
		e, err = decode[QuestionRepliedEvent](w.Properties)
	case TypeQuestionRejected:
		e, err = decode[QuestionRejectedEvent](w.Properties)
	case TypeTodoUpdated:
		e, err = decode[TodoUpdatedEvent](w.Properties)
	case TypeHookNotice:
		e, err = decode[HookNoticeEvent](w.Properties)
	case TypeEventsDropped:
		e, err = decode[EventsDroppedEvent](w.Properties)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("decoding a %s event: %w", w.Type, err)
	}
	return e, nil
}

func decode[T Event](data []byte) (Event, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}
