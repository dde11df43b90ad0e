// Package wire is the contract of codeloop's HTTP API, shared by the
// server (internal/server) and its client (internal/client/remote): the
// route table, the error body, the headers, and the request and response
// shapes that are not client types themselves. Neither side writes a
// route's path or a body's shape of its own.
//
// It imports only internal/client.
package wire

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/codeloop/codeloop/internal/client"
)

// Route is one operation of the API: its method, its path pattern in
// net/http's syntax ("/session/{sessionID}"), OpenCode's operation id and
// a summary for GET /doc.
type Route struct {
	Method, Pattern, ID, Summary string
}

// Path fills the route's {wildcards} with params, in order, each escaped
// as a path segment. Missing params leave their wildcards empty.
func (r Route) Path(params ...string) string {
	var b strings.Builder
	rest := r.Pattern
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:i])
		if len(params) > 0 {
			b.WriteString(url.PathEscape(params[0]))
			params = params[1:]
		}
		rest = rest[i+j+1:]
	}
}

// MessageIDHeader carries the id of the message a prompt_async or
// command_async call stored (those answer 204).
const MessageIDHeader = "Codeloop-Message-ID"

// Error is every error's JSON body: OpenCode's {name, data}.
type Error struct {
	// Name is the kind: BadRequestError, NotFoundError, BusyError,
	// UnsupportedError, UnauthorizedError, ForbiddenError,
	// PayloadTooLargeError or UnknownError.
	Name string    `json:"name"`
	Data ErrorData `json:"data"`
}

// ErrorData says what went wrong and, for an UnsupportedError, which
// operation and why.
type ErrorData struct {
	Message string `json:"message"`
	// Field names the member of the body that could not be read.
	Field  string `json:"field,omitempty"`
	Op     string `json:"op,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Health is the answer of GET /global/health.
type Health struct {
	Healthy bool   `json:"healthy"`
	Version string `json:"version"`
}

// ProvidersResponse is the answer of GET /config/providers: the usable
// providers, each one's default model (OpenCode's shape), and codeloop's
// additions, the model a prompt without one uses and the recent models.
type ProvidersResponse struct {
	Providers []Provider `json:"providers"`
	// Default maps a provider's id to its default model's id.
	Default map[string]string `json:"default"`
	// Model is the model a prompt without one is answered with.
	Model *client.ModelRef `json:"model,omitempty"`
	// Recent are the models used last, newest first.
	Recent []client.ModelRef `json:"recent,omitempty"`
}

// ProviderListResponse is the answer of GET /provider.
type ProviderListResponse struct {
	All       []Provider        `json:"all"`
	Default   map[string]string `json:"default"`
	Connected []string          `json:"connected"`
}

// SummarizeInput is the body of POST /session/{sessionID}/summarize; the
// session's own model summarises, so its fields are accepted and unused.
type SummarizeInput struct {
	ProviderID string `json:"providerID,omitempty"`
	ModelID    string `json:"modelID,omitempty"`
	Auto       bool   `json:"auto,omitempty"`
}

// QuestionReplyBody is the body of POST /question/{requestID}/reply: one list
// of chosen labels (or free text) per question, in order.
type QuestionReplyBody struct {
	Answers [][]string `json:"answers"`
}

// PermissionResponseBody is the body of the older
// POST /session/{sessionID}/permissions/{permissionID}.
type PermissionResponseBody struct {
	Response string `json:"response"`
}

// EventQuery selects the events of GET /event; none selects all.
type EventQuery struct {
	// SessionID keeps the events of one session.
	SessionID string `json:"sessionID,omitempty"`
	// Type keeps the events of these types (repeat the parameter).
	Type []string `json:"type,omitempty"`
}

// GlobalEnvelope is an event of GET /global/event: the event of the project
// in Directory, in OpenCode's envelope.
type GlobalEnvelope struct {
	Directory string          `json:"directory"`
	Payload   json.RawMessage `json:"payload"`
}
