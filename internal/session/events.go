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
//	bus.SessionIdle                                             IdleEvent
//	bus.MessageRemoved                                          MessageRemovedEvent
//	bus.PartRemoved                                             PartRemovedEvent
//	bus.TurnEnded                                               TurnEndedEvent
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

// IdleEvent says a session's loop has stopped and nothing runs for it.
type IdleEvent struct {
	SessionID string `json:"sessionID"`
}

// MessageRemovedEvent says a message was removed (by a revert).
type MessageRemovedEvent struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
}

// PartRemovedEvent says a part was removed (by a revert).
type PartRemovedEvent struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	PartID    string `json:"partID"`
}

// TurnReason says why a turn ended.
type TurnReason string

// The reasons a turn ends.
const (
	// TurnCompleted: the model answered and stopped by itself.
	TurnCompleted TurnReason = "completed"
	// TurnAborted: the user (or a signal) stopped it.
	TurnAborted TurnReason = "aborted"
	// TurnError: a provider, tool or storage error ended it; Error says
	// which.
	TurnError TurnReason = "error"
	// TurnRejected: the user rejected a permission or dismissed a
	// question, and the loop stopped there.
	TurnRejected TurnReason = "rejected"
	// TurnMaxSteps: the agent used all the steps it may take.
	TurnMaxSteps TurnReason = "max_steps"
	// TurnLength: the answer reached the model's output limit.
	TurnLength TurnReason = "length"
	// TurnContentFilter: the provider's filter stopped the answer.
	TurnContentFilter TurnReason = "content_filter"
	// TurnEmpty: the model answered nothing: no text and no tool call.
	TurnEmpty TurnReason = "empty"
	// TurnAttachmentFailed: a file of the prompt could not be attached;
	// Detail says which and why. The model still answered.
	TurnAttachmentFailed TurnReason = "attachment_failed"
	// TurnStopped: a hook stopped the turn.
	TurnStopped TurnReason = "stopped"
)

// TurnEndedEvent says why a session's turn ended. Front ends map it (an
// editor's stop reason, run's exit status) instead of guessing from the
// history.
type TurnEndedEvent struct {
	SessionID string         `json:"sessionID"`
	Reason    TurnReason     `json:"reason"`
	Error     *message.Error `json:"error,omitempty"`
	// Detail says more for some reasons: the file that could not be
	// attached.
	Detail string `json:"detail,omitempty"`
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
