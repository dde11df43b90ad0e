package remote

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

// wire.MessageIDHeader carries the id of the message prompt_async and
// command_async stored.

// Path returns the server's project directories.
func (c *Client) Path(ctx context.Context) (client.Path, error) {
	var out client.Path
	_, err := c.do(ctx, request{route: wire.PathGet, out: &out})
	return out, err
}

// ListSessions lists the project's sessions, the one used last first.
func (c *Client) ListSessions(ctx context.Context, opts client.ListSessionsOptions) ([]client.Session, error) {
	q := url.Values{}
	if opts.Roots {
		q.Set("roots", "true")
	}
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	if opts.Search != "" {
		q.Set("search", opts.Search)
	}
	if opts.Details {
		q.Set("details", "true")
	}
	var out []client.Session
	_, err := c.do(ctx, request{route: wire.SessionList, query: q, out: &out})
	return out, err
}

// GetSession returns a session.
func (c *Client) GetSession(ctx context.Context, sessionID string) (client.Session, error) {
	var out client.Session
	_, err := c.do(ctx, request{route: wire.SessionGet, params: []string{sessionID}, out: &out})
	return out, err
}

// CreateSession makes a session.
func (c *Client) CreateSession(ctx context.Context, in client.CreateSessionInput) (client.Session, error) {
	var out client.Session
	_, err := c.do(ctx, request{route: wire.SessionCreate, body: in, out: &out})
	return out, err
}

// DeleteSession deletes a session with its children.
func (c *Client) DeleteSession(ctx context.Context, sessionID string) error {
	_, err := c.do(ctx, request{route: wire.SessionDelete, params: []string{sessionID}})
	return err
}

// UpdateSession changes a session's title.
func (c *Client) UpdateSession(ctx context.Context, sessionID string, in client.UpdateSessionInput) (client.Session, error) {
	var out client.Session
	_, err := c.do(ctx, request{route: wire.SessionUpdate, params: []string{sessionID}, body: in, out: &out})
	return out, err
}

// ForkSession copies a session.
func (c *Client) ForkSession(ctx context.Context, sessionID string, in client.ForkSessionInput) (client.Session, error) {
	var out client.Session
	_, err := c.do(ctx, request{route: wire.SessionFork, params: []string{sessionID}, body: in, out: &out})
	return out, err
}

// Children lists the sessions a session's sub-agents started.
func (c *Client) Children(ctx context.Context, sessionID string) ([]client.Session, error) {
	var out []client.Session
	_, err := c.do(ctx, request{route: wire.SessionChildren, params: []string{sessionID}, out: &out})
	return out, err
}

// Messages returns a session's messages, oldest first.
func (c *Client) Messages(ctx context.Context, sessionID string, opts client.MessagesOptions) ([]client.Message, error) {
	q := url.Values{}
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	if opts.Before != "" {
		q.Set("before", opts.Before)
	}
	var out []client.Message
	_, err := c.do(ctx, request{route: wire.SessionMessages, params: []string{sessionID}, query: q, out: &out})
	return out, err
}

// Message returns one message with its parts.
func (c *Client) Message(ctx context.Context, sessionID, messageID string) (client.Message, error) {
	var out client.Message
	_, err := c.do(ctx, request{route: wire.SessionMessage, params: []string{sessionID, messageID}, out: &out})
	return out, err
}

// Prompt sends a message without waiting for the answer.
func (c *Client) Prompt(ctx context.Context, sessionID string, in client.PromptInput) (string, error) {
	if in.Parts == nil {
		in.Parts = []client.PartInput{}
	}
	h, err := c.do(ctx, request{route: wire.SessionPromptAsync, params: []string{sessionID}, body: in})
	if err != nil {
		return "", err
	}
	id := h.Get(wire.MessageIDHeader)
	if id == "" && !in.NoReply {
		return "", errNoID
	}
	return id, nil
}

// Abort interrupts the session's loop and shell command.
func (c *Client) Abort(ctx context.Context, sessionID string) error {
	_, err := c.do(ctx, request{route: wire.SessionAbort, params: []string{sessionID}})
	return err
}

// Shell runs a command typed by the user and returns when it has ended.
func (c *Client) Shell(ctx context.Context, sessionID string, in client.ShellInput) (string, error) {
	var out struct {
		Info client.MessageInfo `json:"info"`
	}
	_, err := c.do(ctx, request{route: wire.SessionShell, params: []string{sessionID}, body: in, out: &out, long: true})
	return out.Info.ID, err
}

// Command runs a slash command without waiting for the answer.
func (c *Client) Command(ctx context.Context, sessionID string, in client.CommandInput) (string, error) {
	h, err := c.do(ctx, request{route: wire.SessionCommandAsync, params: []string{sessionID}, body: in})
	if err != nil {
		return "", err
	}
	return h.Get(wire.MessageIDHeader), nil
}

// Status returns the status of every session that is not idle.
func (c *Client) Status(ctx context.Context) (map[string]client.SessionStatus, error) {
	out := map[string]client.SessionStatus{}
	_, err := c.do(ctx, request{route: wire.SessionStatus, out: &out})
	return out, err
}

// Revert undoes the file changes made after a message.
func (c *Client) Revert(ctx context.Context, sessionID string, in client.RevertInput) (client.Session, error) {
	var out client.Session
	_, err := c.do(ctx, request{route: wire.SessionRevert, params: []string{sessionID}, body: in, out: &out})
	return out, err
}

// Unrevert restores what a revert hid.
func (c *Client) Unrevert(ctx context.Context, sessionID string) (client.Session, error) {
	var out client.Session
	_, err := c.do(ctx, request{route: wire.SessionUnrevert, params: []string{sessionID}, out: &out})
	return out, err
}

// Permissions lists the pending permission requests.
func (c *Client) Permissions(ctx context.Context) ([]client.PermissionRequest, error) {
	var out []client.PermissionRequest
	_, err := c.do(ctx, request{route: wire.PermissionList, out: &out})
	return out, err
}

// ReplyPermission answers a pending permission request.
func (c *Client) ReplyPermission(ctx context.Context, requestID string, in client.PermissionReply) error {
	_, err := c.do(ctx, request{route: wire.PermissionReply, params: []string{requestID}, body: in})
	return err
}

// Questions lists the pending questions.
func (c *Client) Questions(ctx context.Context) ([]client.QuestionRequest, error) {
	var out []client.QuestionRequest
	_, err := c.do(ctx, request{route: wire.QuestionList, out: &out})
	return out, err
}

// ReplyQuestion answers a pending question.
func (c *Client) ReplyQuestion(ctx context.Context, requestID string, answers [][]string) error {
	if answers == nil {
		answers = [][]string{}
	}
	body := wire.QuestionReplyBody{Answers: answers}
	_, err := c.do(ctx, request{route: wire.QuestionReply, params: []string{requestID}, body: body})
	return err
}

// RejectQuestion dismisses a pending question.
func (c *Client) RejectQuestion(ctx context.Context, requestID string) error {
	_, err := c.do(ctx, request{route: wire.QuestionReject, params: []string{requestID}})
	return err
}

// Models returns the usable providers and models, the recent ones and the
// default.
func (c *Client) Models(ctx context.Context) (client.ModelCatalog, error) {
	var out wire.ProvidersResponse
	_, err := c.do(ctx, request{route: wire.ConfigProviders, out: &out})
	cat := client.ModelCatalog{Default: out.Model, Recent: out.Recent}
	for _, p := range out.Providers {
		cat.Providers = append(cat.Providers, p.Client())
	}
	return cat, err
}

// Agents lists the agents.
func (c *Client) Agents(ctx context.Context) ([]client.Agent, error) {
	var in []wire.Agent
	_, err := c.do(ctx, request{route: wire.AppAgents, out: &in})
	out := make([]client.Agent, 0, len(in))
	for _, a := range in {
		out = append(out, a.Client())
	}
	return out, err
}

// Commands lists the project's slash commands.
func (c *Client) Commands(ctx context.Context) ([]client.Command, error) {
	var out []client.Command
	_, err := c.do(ctx, request{route: wire.CommandList, out: &out})
	return out, err
}

// Config returns the project's resolved config, its secrets masked by
// the server.
func (c *Client) Config(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	_, err := c.do(ctx, request{route: wire.ConfigGet, out: &out})
	return out, err
}
