package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

func (s *Server) operations() []*operation {
	c := s.c
	sid := func(r *http.Request) string { return r.PathValue("sessionID") }
	ops := []*operation{
		route(s, wire.GlobalHealth,
			func(*http.Request, none, none) (wire.Health, error) {
				return wire.Health{Healthy: true, Version: s.opts.Version}, nil
			}),
		route(s, wire.PathGet,
			func(r *http.Request, _ none, _ none) (client.Path, error) { return c.Path(r.Context()) }),
		route(s, wire.ConfigGet,
			func(r *http.Request, _ none, _ none) (map[string]any, error) { return s.maskedConfig(r.Context()) }),
		route(s, wire.ConfigProviders,
			func(r *http.Request, _ none, _ none) (wire.ProvidersResponse, error) {
				cat, err := c.Models(r.Context())
				if err != nil {
					return wire.ProvidersResponse{}, err
				}
				return wire.ProvidersResponse{Providers: providers(cat), Default: defaults(cat), Model: cat.Default, Recent: cat.Recent}, nil
			}),
		route(s, wire.ProviderList,
			func(r *http.Request, _ none, _ none) (wire.ProviderListResponse, error) {
				cat, err := c.Models(r.Context())
				if err != nil {
					return wire.ProviderListResponse{}, err
				}
				out := wire.ProviderListResponse{All: providers(cat), Default: defaults(cat), Connected: []string{}}
				for _, p := range cat.Providers {
					out.Connected = append(out.Connected, p.ID)
				}
				return out, nil
			}),
		route(s, wire.AppAgents,
			func(r *http.Request, _ none, _ none) ([]wire.Agent, error) { return agents(c.Agents(r.Context())) }),
		route(s, wire.CommandList,
			func(r *http.Request, _ none, _ none) ([]client.Command, error) { return list(c.Commands(r.Context())) }),

		route(s, wire.SessionList,
			func(r *http.Request, q client.ListSessionsOptions, _ none) ([]client.Session, error) {
				return list(c.ListSessions(r.Context(), q))
			}),
		route(s, wire.SessionCreate,
			func(r *http.Request, _ none, in client.CreateSessionInput) (client.Session, error) {
				return c.CreateSession(r.Context(), in)
			}),
		route(s, wire.SessionStatus,
			func(r *http.Request, _ none, _ none) (map[string]client.SessionStatus, error) {
				return c.Status(r.Context())
			}),
		route(s, wire.SessionGet,
			func(r *http.Request, _ none, _ none) (client.Session, error) {
				return c.GetSession(r.Context(), sid(r))
			}),
		route(s, wire.SessionUpdate,
			func(r *http.Request, _ none, in client.UpdateSessionInput) (client.Session, error) {
				return c.UpdateSession(r.Context(), sid(r), in)
			}),
		route(s, wire.SessionDelete,
			func(r *http.Request, _ none, _ none) (bool, error) { return ok(c.DeleteSession(r.Context(), sid(r))) }),
		route(s, wire.SessionChildren,
			func(r *http.Request, _ none, _ none) ([]client.Session, error) {
				return list(c.Children(r.Context(), sid(r)))
			}),
		route(s, wire.SessionFork,
			func(r *http.Request, _ none, in client.ForkSessionInput) (client.Session, error) {
				return c.ForkSession(r.Context(), sid(r), in)
			}),
		route(s, wire.SessionAbort,
			func(r *http.Request, _ none, _ none) (bool, error) { return ok(c.Abort(r.Context(), sid(r))) }),
		route(s, wire.SessionSummarize,
			func(r *http.Request, _ none, _ wire.SummarizeInput) (bool, error) {
				_, err := c.Command(r.Context(), sid(r), client.CommandInput{Command: "compact"})
				return ok(err)
			}),
		route(s, wire.SessionRevert,
			func(r *http.Request, _ none, in client.RevertInput) (client.Session, error) {
				return c.Revert(r.Context(), sid(r), in)
			}),
		route(s, wire.SessionUnrevert,
			func(r *http.Request, _ none, _ none) (client.Session, error) { return c.Unrevert(r.Context(), sid(r)) }),

		route(s, wire.SessionMessages,
			func(r *http.Request, q client.MessagesOptions, _ none) ([]client.Message, error) {
				return list(c.Messages(r.Context(), sid(r), q))
			}),
		route(s, wire.SessionMessage,
			func(r *http.Request, _ none, _ none) (client.Message, error) {
				return c.Message(r.Context(), sid(r), r.PathValue("messageID"))
			}),
		route(s, wire.SessionPrompt,
			func(r *http.Request, _ none, in client.PromptInput) (client.Message, error) {
				return s.promptAndWait(r.Context(), sid(r), func() (string, error) { return c.Prompt(r.Context(), sid(r), in) }, in.NoReply)
			}),
		route(s, wire.SessionPromptAsync,
			func(r *http.Request, _ none, in client.PromptInput) (accepted, error) {
				id, err := c.Prompt(r.Context(), sid(r), in)
				return accepted{id}, err
			}),
		route(s, wire.SessionCommand,
			func(r *http.Request, _ none, in client.CommandInput) (client.Message, error) {
				return s.promptAndWait(r.Context(), sid(r), func() (string, error) { return c.Command(r.Context(), sid(r), in) }, false)
			}),
		route(s, wire.SessionCommandAsync,
			func(r *http.Request, _ none, in client.CommandInput) (accepted, error) {
				id, err := c.Command(r.Context(), sid(r), in)
				return accepted{id}, err
			}),
		route(s, wire.SessionShell,
			func(r *http.Request, _ none, in client.ShellInput) (wire.ShellResponse, error) {
				id, err := c.Shell(r.Context(), sid(r), in)
				if err != nil {
					return wire.ShellResponse{}, err
				}
				m, err := c.Message(r.Context(), sid(r), id)
				return wire.ShellResponse{Info: m.Info, Parts: nonNil(m.Parts)}, err
			}),

		route(s, wire.PermissionList,
			func(r *http.Request, _ none, _ none) ([]client.PermissionRequest, error) {
				return list(c.Permissions(r.Context()))
			}),
		route(s, wire.PermissionReply,
			func(r *http.Request, _ none, in client.PermissionReply) (bool, error) {
				return ok(c.ReplyPermission(r.Context(), r.PathValue("requestID"), in))
			}),
		route(s, wire.PermissionRespond,
			func(r *http.Request, _ none, in wire.PermissionResponseBody) (bool, error) {
				return ok(c.ReplyPermission(r.Context(), r.PathValue("permissionID"), client.PermissionReply{Reply: in.Response}))
			}),
		route(s, wire.QuestionList,
			func(r *http.Request, _ none, _ none) ([]client.QuestionRequest, error) {
				return list(c.Questions(r.Context()))
			}),
		route(s, wire.QuestionReply,
			func(r *http.Request, _ none, in wire.QuestionReplyBody) (bool, error) {
				if in.Answers == nil {
					return false, &badRequest{field: "answers", msg: "field answers: want an array with one array of answers per question"}
				}
				return ok(c.ReplyQuestion(r.Context(), r.PathValue("requestID"), in.Answers))
			}),
		route(s, wire.QuestionReject,
			func(r *http.Request, _ none, _ none) (bool, error) {
				return ok(c.RejectQuestion(r.Context(), r.PathValue("requestID")))
			}),
		route(s, wire.SessionContext,
			func(r *http.Request, _ none, _ none) (client.ContextUsage, error) {
				return c.ContextUsage(r.Context(), sid(r))
			}),
		route(s, wire.MCPStatus,
			func(r *http.Request, _ none, _ none) (map[string]client.MCPStatus, error) {
				return c.MCPStatus(r.Context())
			}),
		route(s, wire.LSPStatus,
			func(r *http.Request, _ none, _ none) ([]client.LSPStatus, error) {
				return list(c.LSPStatus(r.Context()))
			}),
	}
	events := &operation{Method: wire.EventSubscribe.Method, Path: wire.EventSubscribe.Pattern, ID: wire.EventSubscribe.ID, Summary: wire.EventSubscribe.Summary,
		Query: typeOf[wire.EventQuery](), Stream: true, handler: http.HandlerFunc(s.events)}
	global := &operation{Method: wire.GlobalEvent.Method, Path: wire.GlobalEvent.Pattern, ID: wire.GlobalEvent.ID, Summary: wire.GlobalEvent.Summary,
		Query: typeOf[wire.EventQuery](), Stream: true, handler: http.HandlerFunc(s.globalEvents)}
	doc := &operation{Method: wire.DocGet.Method, Path: wire.DocGet.Pattern, ID: wire.DocGet.ID, Summary: wire.DocGet.Summary, Resp: typeOf[map[string]any]()}
	ops = append(ops, s.workspaceOps()...)
	ops = append(ops, events, global, doc)
	ops = append(ops, s.unsupportedOps(ops)...)
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
	sent := time.Now()
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
	if !noReply {
		// The streams open meanwhile carry the turn to their readers
		// before its answer returns.
		s.delivery.wait(ctx, sessionID, sent)
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
