package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/codeloop/codeloop/internal/client"
)

// Health is the answer of GET /global/health.
type Health struct {
	Healthy bool   `json:"healthy"`
	Version string `json:"version"`
}

// ProvidersResponse is the answer of GET /config/providers: the usable
// providers, each one's default model (OpenCode's shape), and codeloop's
// additions, the model a prompt without one uses and the recent models.
type ProvidersResponse struct {
	Providers []client.Provider `json:"providers"`
	// Default maps a provider's id to its default model's id.
	Default map[string]string `json:"default"`
	// Model is the model a prompt without one is answered with.
	Model *client.ModelRef `json:"model,omitempty"`
	// Recent are the models used last, newest first.
	Recent []client.ModelRef `json:"recent,omitempty"`
}

// ProviderList is the answer of GET /provider.
type ProviderList struct {
	All       []client.Provider `json:"all"`
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

// QuestionReply is the body of POST /question/{requestID}/reply: one list
// of chosen labels (or free text) per question, in order.
type QuestionReply struct {
	Answers [][]string `json:"answers"`
}

// PermissionResponse is the body of the older
// POST /session/{sessionID}/permissions/{permissionID}.
type PermissionResponse struct {
	Response string `json:"response"`
}

// EventQuery selects the events of GET /event; none selects all.
type EventQuery struct {
	// SessionID keeps the events of one session.
	SessionID string `json:"sessionID,omitempty"`
	// Type keeps the events of these types (repeat the parameter).
	Type []string `json:"type,omitempty"`
}

func (s *Server) operations() []*operation {
	c := s.c
	sid := func(r *http.Request) string { return r.PathValue("sessionID") }
	ops := []*operation{
		route(s, "GET", "/global/health", "global.health", "Report that the server is up, with its version",
			func(*http.Request, none, none) (Health, error) {
				return Health{Healthy: true, Version: s.opts.Version}, nil
			}),
		route(s, "GET", "/path", "path.get", "The project's directories",
			func(r *http.Request, _ none, _ none) (client.Path, error) { return c.Path(r.Context()) }),
		route(s, "GET", "/config", "config.get", "The project's resolved config, secrets masked",
			func(r *http.Request, _ none, _ none) (map[string]any, error) {
				raw, err := c.Config(r.Context())
				if err != nil {
					return nil, err
				}
				var tree map[string]any
				if err := json.Unmarshal(raw, &tree); err != nil {
					return nil, err
				}
				maskSecrets(tree)
				return tree, nil
			}),
		route(s, "GET", "/config/providers", "config.providers", "The usable providers and models, and the default model",
			func(r *http.Request, _ none, _ none) (ProvidersResponse, error) {
				cat, err := c.Models(r.Context())
				if err != nil {
					return ProvidersResponse{}, err
				}
				return ProvidersResponse{Providers: nonNil(cat.Providers), Default: defaults(cat), Model: cat.Default, Recent: cat.Recent}, nil
			}),
		route(s, "GET", "/provider", "provider.list", "The usable providers, their default models and which are connected",
			func(r *http.Request, _ none, _ none) (ProviderList, error) {
				cat, err := c.Models(r.Context())
				if err != nil {
					return ProviderList{}, err
				}
				out := ProviderList{All: nonNil(cat.Providers), Default: defaults(cat), Connected: []string{}}
				for _, p := range cat.Providers {
					out.Connected = append(out.Connected, p.ID)
				}
				return out, nil
			}),
		route(s, "GET", "/agent", "app.agents", "The agents",
			func(r *http.Request, _ none, _ none) ([]client.Agent, error) { return list(c.Agents(r.Context())) }),
		route(s, "GET", "/command", "command.list", "The project's slash commands",
			func(r *http.Request, _ none, _ none) ([]client.Command, error) { return list(c.Commands(r.Context())) }),

		route(s, "GET", "/session", "session.list", "The project's sessions, newest first",
			func(r *http.Request, q client.ListSessionsOptions, _ none) ([]client.Session, error) {
				return list(c.ListSessions(r.Context(), q))
			}),
		route(s, "POST", "/session", "session.create", "Create a session",
			func(r *http.Request, _ none, in client.CreateSessionInput) (client.Session, error) {
				return c.CreateSession(r.Context(), in)
			}),
		route(s, "GET", "/session/status", "session.status", "The status of every session that is not idle",
			func(r *http.Request, _ none, _ none) (map[string]client.SessionStatus, error) {
				return c.Status(r.Context())
			}),
		route(s, "GET", "/session/{sessionID}", "session.get", "A session",
			func(r *http.Request, _ none, _ none) (client.Session, error) {
				return c.GetSession(r.Context(), sid(r))
			}),
		route(s, "PATCH", "/session/{sessionID}", "session.update", "Change a session's title",
			func(r *http.Request, _ none, in client.UpdateSessionInput) (client.Session, error) {
				return c.UpdateSession(r.Context(), sid(r), in)
			}),
		route(s, "DELETE", "/session/{sessionID}", "session.delete", "Delete a session with its messages and children, stopping its loop",
			func(r *http.Request, _ none, _ none) (bool, error) { return ok(c.DeleteSession(r.Context(), sid(r))) }),
		route(s, "GET", "/session/{sessionID}/children", "session.children", "The sessions a session's sub-agents started",
			func(r *http.Request, _ none, _ none) ([]client.Session, error) {
				return list(c.Children(r.Context(), sid(r)))
			}),
		route(s, "POST", "/session/{sessionID}/fork", "session.fork", "Copy a session, up to a message when one is named",
			func(r *http.Request, _ none, in client.ForkSessionInput) (client.Session, error) {
				return c.ForkSession(r.Context(), sid(r), in)
			}),
		route(s, "POST", "/session/{sessionID}/abort", "session.abort", "Interrupt a session's loop and shell command; what streamed is kept",
			func(r *http.Request, _ none, _ none) (bool, error) { return ok(c.Abort(r.Context(), sid(r))) }),
		route(s, "POST", "/session/{sessionID}/summarize", "session.summarize", "Start compacting a session's history; the outcome arrives as events",
			func(r *http.Request, _ none, _ SummarizeInput) (bool, error) {
				_, err := c.Command(r.Context(), sid(r), client.CommandInput{Command: "compact"})
				return ok(err)
			}),
		route(s, "POST", "/session/{sessionID}/revert", "session.revert", "Undo the file changes made after a message and hide the messages from it on (501 where file snapshots are not available)",
			func(r *http.Request, _ none, in client.RevertInput) (client.Session, error) {
				return c.Revert(r.Context(), sid(r), in)
			}),
		route(s, "POST", "/session/{sessionID}/unrevert", "session.unrevert", "Restore what a revert hid",
			func(r *http.Request, _ none, _ none) (client.Session, error) { return c.Unrevert(r.Context(), sid(r)) }),

		route(s, "GET", "/session/{sessionID}/message", "session.messages", "A session's messages with their parts, oldest first",
			func(r *http.Request, q client.MessagesOptions, _ none) ([]client.Message, error) {
				return list(c.Messages(r.Context(), sid(r), q))
			}),
		route(s, "GET", "/session/{sessionID}/message/{messageID}", "session.message", "One message with its parts",
			func(r *http.Request, _ none, _ none) (client.Message, error) {
				return c.Message(r.Context(), sid(r), r.PathValue("messageID"))
			}),
		route(s, "POST", "/session/{sessionID}/message", "session.prompt", "Send a message and wait for the answer, which is returned",
			func(r *http.Request, _ none, in client.PromptInput) (client.Message, error) {
				return s.promptAndWait(r.Context(), sid(r), func() (string, error) { return c.Prompt(r.Context(), sid(r), in) }, in.NoReply)
			}),
		route(s, "POST", "/session/{sessionID}/prompt_async", "session.prompt_async", "Send a message and return at once; the answer arrives as events",
			func(r *http.Request, _ none, in client.PromptInput) (accepted, error) {
				id, err := c.Prompt(r.Context(), sid(r), in)
				return accepted{id}, err
			}),
		route(s, "POST", "/session/{sessionID}/command", "session.command", "Run a slash command and wait for the answer, which is returned",
			func(r *http.Request, _ none, in client.CommandInput) (client.Message, error) {
				return s.promptAndWait(r.Context(), sid(r), func() (string, error) { return c.Command(r.Context(), sid(r), in) }, false)
			}),
		route(s, "POST", "/session/{sessionID}/command_async", "session.command_async", "Run a slash command and return at once (codeloop's addition)",
			func(r *http.Request, _ none, in client.CommandInput) (accepted, error) {
				id, err := c.Command(r.Context(), sid(r), in)
				return accepted{id}, err
			}),
		route(s, "POST", "/session/{sessionID}/shell", "session.shell", "Run a shell command in the session and return the answer that records it (409 while the loop runs)",
			func(r *http.Request, _ none, in client.ShellInput) (client.MessageInfo, error) {
				id, err := c.Shell(r.Context(), sid(r), in)
				if err != nil {
					return client.MessageInfo{}, err
				}
				m, err := c.Message(r.Context(), sid(r), id)
				return m.Info, err
			}),

		route(s, "GET", "/permission", "permission.list", "The permission requests waiting for a reply",
			func(r *http.Request, _ none, _ none) ([]client.PermissionRequest, error) {
				return list(c.Permissions(r.Context()))
			}),
		route(s, "POST", "/permission/{requestID}/reply", "permission.reply", "Answer a permission request: once, always (kept in scope) or reject",
			func(r *http.Request, _ none, in client.PermissionReply) (bool, error) {
				return ok(c.ReplyPermission(r.Context(), r.PathValue("requestID"), in))
			}),
		route(s, "POST", "/session/{sessionID}/permissions/{permissionID}", "permission.respond", "Answer a permission request (the older route)",
			func(r *http.Request, _ none, in PermissionResponse) (bool, error) {
				return ok(c.ReplyPermission(r.Context(), r.PathValue("permissionID"), client.PermissionReply{Reply: in.Response}))
			}),
		route(s, "GET", "/question", "question.list", "The questions waiting for an answer",
			func(r *http.Request, _ none, _ none) ([]client.QuestionRequest, error) {
				return list(c.Questions(r.Context()))
			}),
		route(s, "POST", "/question/{requestID}/reply", "question.reply", "Answer a question",
			func(r *http.Request, _ none, in QuestionReply) (bool, error) {
				if in.Answers == nil {
					return false, &badRequest{field: "answers", msg: "field answers: want an array with one array of answers per question"}
				}
				return ok(c.ReplyQuestion(r.Context(), r.PathValue("requestID"), in.Answers))
			}),
		route(s, "POST", "/question/{requestID}/reject", "question.reject", "Dismiss a question; the loop stops",
			func(r *http.Request, _ none, _ none) (bool, error) {
				return ok(c.RejectQuestion(r.Context(), r.PathValue("requestID")))
			}),
	}
	events := &operation{Method: "GET", Path: "/event", ID: "event.subscribe", Summary: "The engine's events as server-sent events: server.connected first, server.heartbeat every 10 s",
		Query: typeOf[EventQuery](), Stream: true, handler: http.HandlerFunc(s.events)}
	doc := &operation{Method: "GET", Path: "/doc", ID: "doc.get", Summary: "This API's OpenAPI 3.1 description", Resp: typeOf[map[string]any]()}
	ops = append(ops, events, doc)
	spec := openAPI(ops, s.opts.Version)
	doc.handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, spec) })
	return ops
}

// promptAndWait sends a prompt with send and waits until the session is
// idle, then returns the answer to it: the last assistant message whose
// parent it is, or the user's message when there is none (noReply, or a
// loop that failed before answering).
func (s *Server) promptAndWait(ctx context.Context, sessionID string, send func() (string, error), noReply bool) (client.Message, error) {
	ev, err := s.c.Subscribe(ctx, client.EventFilter{SessionID: sessionID, Types: []string{client.TypeSessionStatus}})
	if err != nil {
		return client.Message{}, err
	}
	defer ev.Close()
	st, err := s.c.Status(ctx)
	if err != nil {
		return client.Message{}, err
	}
	_, running := st[sessionID] // a running loop takes the prompt up
	id, err := send()
	if err != nil {
		return client.Message{}, err
	}
	if id == "" {
		return client.Message{}, &badRequest{msg: "the command stores no message (compact); use command_async and follow the events"}
	}
	// The answer is complete when the session goes idle after the loop
	// that takes the prompt up has been seen busy.
	for !noReply {
		e, err := ev.Next(ctx)
		if err != nil {
			return client.Message{}, err
		}
		if _, dropped := e.(client.EventsDroppedEvent); dropped {
			st, err := s.c.Status(ctx)
			if err != nil {
				return client.Message{}, err
			}
			if _, busy := st[sessionID]; !busy {
				break
			}
			continue
		}
		if st, isStatus := e.(client.SessionStatusEvent); isStatus {
			if st.Status.Type != client.StatusIdle {
				running = true
			} else if running {
				break
			}
		}
	}
	msgs, err := s.c.Messages(ctx, sessionID, client.MessagesOptions{})
	if err != nil {
		return client.Message{}, err
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Info.Role == client.RoleAssistant && m.Info.ParentID == id {
			return m, nil
		}
	}
	return s.c.Message(ctx, sessionID, id)
}

func list[T any](v []T, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	return nonNil(v), nil
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

func ok(err error) (bool, error) { return err == nil, err }

// defaults maps each provider to its default model: the catalog's default
// for its provider, the first model for the others.
func defaults(cat client.ModelCatalog) map[string]string {
	out := map[string]string{}
	for _, p := range cat.Providers {
		if len(p.Models) > 0 {
			out[p.ID] = p.Models[0].ID
		}
	}
	if cat.Default != nil {
		out[cat.Default.ProviderID] = cat.Default.ModelID
	}
	return out
}

// secretWords mark config keys whose string values are secrets.
var secretWords = []string{"key", "token", "secret", "password", "authorization", "cookie", "credential"}

// maskSecrets replaces, at any depth, the strings held under a key that
// names a secret.
func maskSecrets(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, isString := x.(string); isString && s != "" && isSecret(k) {
				v[k] = "********"
				continue
			}
			maskSecrets(x)
		}
	case []any:
		for _, x := range v {
			maskSecrets(x)
		}
	}
}

func isSecret(k string) bool {
	k = strings.ToLower(k)
	if k == "keybinds" {
		return false
	}
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}
