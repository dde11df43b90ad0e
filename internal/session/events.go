package session

import (
	"github.com/codeloop/codeloop/internal/message"
)

// The properties of the events the session engine publishes on the bus,
// by event name:
//
//	bus.SessionCreated, bus.SessionUpdated, bus.SessionDeleted  SessionEvent
//	bus.MessageUpdated                                          MessageEvent
//	bus.PartUpdated                                             PartEvent
//	bus.PartDelta                                               DeltaEvent (lossy)
//	bus.SessionStatus                                           StatusEvent
//	bus.SessionError                                            ErrorEvent
//	bus.SessionCompacted                                        CompactedEvent
//
// Values are snapshots: a subscriber may keep them.

// SessionEvent carries a session's info.
type SessionEvent struct {
	Info Info `json:"info"`
}

// MessageEvent carries a message's info.
type MessageEvent struct {
	Info message.Info `json:"info"`
}

// PartEvent carries a part as it now is.
type PartEvent struct {
	Part message.Part `json:"part"`
}

// DeltaEvent carries text appended to a field of a part.
type DeltaEvent struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	PartID    string `json:"partID"`
	Field     string `json:"field"`
	Delta     string `json:"delta"`
}

// StatusEvent carries a session's status.
type StatusEvent struct {
	SessionID string `json:"sessionID"`
	Status    Status `json:"status"`
}

// ErrorEvent carries the error a session's run ended with.
type ErrorEvent struct {
	SessionID string         `json:"sessionID"`
	Error     *message.Error `json:"error"`
}

// CompactedEvent says a session's history was summarised.
type CompactedEvent struct {
	SessionID string `json:"sessionID"`
}

// StatusType says what a session is doing.
type StatusType string

// The statuses a session may be in.
const (
	StatusIdle  StatusType = "idle"
	StatusBusy  StatusType = "busy"
	StatusRetry StatusType = "retry"
)

// Status is a session's status. Attempt, Max (the attempts allowed),
// Message and Next (Unix milliseconds of the next attempt) are set while
// retrying; Message alone, while busy, says what the session waits for.
type Status struct {
	Type    StatusType `json:"type"`
	Attempt int        `json:"attempt,omitempty"`
	Max     int        `json:"max,omitempty"`
	Message string     `json:"message,omitempty"`
	Next    int64      `json:"next,omitempty"`
}
