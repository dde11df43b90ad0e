package permission

import "errors"

// ReplyKind is the user's answer to a permission request.
type ReplyKind string

// The answers to a permission request.
const (
	// ReplyOnce allows this request only.
	ReplyOnce ReplyKind = "once"
	// ReplyAlways allows this request and, from now on, every request
	// matching its Always patterns.
	ReplyAlways ReplyKind = "always"
	// ReplyReject refuses this request and every other pending request of
	// the session.
	ReplyReject ReplyKind = "reject"
)

// Scope is how far an "always" reply reaches.
type Scope string

// The scopes an "always" reply can be saved with.
const (
	ScopeSession Scope = "session" // this session (the default)
	ScopeProject Scope = "project" // every session of this project
	ScopeGlobal  Scope = "global"  // everywhere
)

// Reply is the user's answer to one pending request.
type Reply struct {
	Kind ReplyKind `json:"reply"`
	// Message, with a reject, is the user's correction for the model.
	Message string `json:"message,omitempty"`
	// Scope, with always, is where the approval is kept (default session).
	Scope Scope `json:"scope,omitempty"`
}

// Replied is the Properties of a bus.PermissionReplied event.
type Replied struct {
	SessionID string    `json:"sessionID"`
	RequestID string    `json:"requestID"`
	Reply     ReplyKind `json:"reply"`
}

// ErrUnknownRequest is returned by a reply to a request that is not
// pending (already answered, cancelled, or never asked).
var ErrUnknownRequest = errors.New("no such pending permission request")
