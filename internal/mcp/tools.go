package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// maxToolName is the longest tool name every provider accepts.
const maxToolName = 64

// sanitize replaces each character a tool name may not hold with '_'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// ToolName is the name the model calls tool of server by:
// <server>_<tool>, sanitised, and shortened with a hash suffix when longer
// than providers accept.
func ToolName(server, tool string) string {
	name := sanitize(server) + "_" + sanitize(tool)
	if len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return name[:maxToolName-9] + "_" + hex.EncodeToString(sum[:4])
}

// mcpTool is one tool of a server, as the loop sees it.
type mcpTool struct {
	m           *Manager
	server      string // configured name
	name        string // the server's name for it
	id          string
	description string
	schema      json.RawMessage
}

func (m *Manager) newTool(s *server, t *sdk.Tool) *mcpTool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return &mcpTool{
		m:           m,
		server:      s.name,
		name:        t.Name,
		id:          ToolName(s.name, t.Name),
		description: desc,
		schema:      sanitizeSchema(t.InputSchema),
	}
}

// dedupeTools drops tools whose name repeats an earlier one's after
// sanitising, keeping the first.
func dedupeTools(tools []*mcpTool, log *slog.Logger) []*mcpTool {
	seen := map[string]bool{}
	out := tools[:0]
	for _, t := range tools {
		if seen[t.id] {
			log.Warn("mcp tool name collides with another after sanitising; skipped", "server", t.server, "tool", t.name, "id", t.id)
			continue
		}
		seen[t.id] = true
		out = append(out, t)
	}
	return out
}

// sanitizeSchema makes a tool's input schema acceptable to every provider:
// an object schema with properties, without $schema. The rest passes
// through as the server wrote it.
func sanitizeSchema(in any) json.RawMessage {
	obj := map[string]any{}
	if b, err := json.Marshal(in); err == nil {
		_ = json.Unmarshal(b, &obj)
	}
	if obj == nil {
		obj = map[string]any{}
	}
	delete(obj, "$schema")
	obj["type"] = "object"
	if _, ok := obj["properties"].(map[string]any); !ok {
		obj["properties"] = map[string]any{}
	}
	b, _ := json.Marshal(obj)
	return b
}

func (t *mcpTool) ID() string              { return t.id }
func (t *mcpTool) Description() string     { return t.description }
func (t *mcpTool) Schema() json.RawMessage { return t.schema }

// Server and Name say which server's tool this is and what the server calls
// it.
func (t *mcpTool) Server() string { return t.server }
func (t *mcpTool) Name() string   { return t.name }

func (t *mcpTool) Run(ctx context.Context, call *tool.Call) (*tool.Result, error) {
	if err := call.Ask(ctx, permission.Request{
		Permission: t.id,
		Patterns:   []string{"*"},
		Always:     []string{"*"},
		Metadata:   map[string]any{"server": t.server, "tool": t.name},
	}); err != nil {
		return nil, err
	}
	var args map[string]any
	if len(call.Input) > 0 && string(call.Input) != "null" {
		if err := json.Unmarshal(call.Input, &args); err != nil {
			return nil, fmt.Errorf("the arguments of %s are not a JSON object: %w", t.id, err)
		}
	}
	res, err := t.m.CallTool(ctx, t.server, t.name, args, call.Progress)
	if err != nil {
		return nil, err
	}
	res.Metadata = map[string]any{"server": t.server, "tool": t.name}
	t.m.truncate(res, call)
	return res, nil
}

// truncate cuts a tool's text result to the tool output limits.
func (m *Manager) truncate(res *tool.Result, call *tool.Call) {
	if m.opts.Truncate != nil {
		m.opts.Truncate.Apply(res, call.CanDelegate, false)
	}
}

// Tools returns the tools of every connected server, sorted by name so the
// list a model sees is stable. The loop asks for it at every step, so a
// server that connects late adds its tools from the next step on.
func (m *Manager) Tools() []tool.Tool {
	m.mu.RLock()
	var out []tool.Tool
	resources := false
	for _, s := range m.servers {
		if s.conn == nil {
			continue
		}
		for _, t := range s.conn.tools {
			out = append(out, t)
		}
		if hasResources(s.conn) {
			resources = true
		}
	}
	m.mu.RUnlock()
	if resources {
		out = append(out, &listResourcesTool{m: m}, &readResourceTool{m: m})
	}
	slices.SortFunc(out, func(a, b tool.Tool) int { return strings.Compare(a.ID(), b.ID()) })
	return slices.CompactFunc(out, func(a, b tool.Tool) bool { return a.ID() == b.ID() })
}

func hasResources(c *conn) bool {
	return c.init != nil && c.init.Capabilities != nil && c.init.Capabilities.Resources != nil
}

// ToolError is a tool call the server answered with isError.
type ToolError struct {
	Server, Tool string
	Message      string
}

func (e *ToolError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("MCP tool %s of server %s failed", e.Tool, e.Server)
	}
	return e.Message
}

// TimeoutError reports a request a server did not answer in time.
type TimeoutError struct {
	Server, What string
	After        time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("MCP server %q did not answer %s within %s", e.Server, e.What, e.After)
}

// errTimeout is the cause of a call context cut by its timeout.
var errTimeout = errors.New("mcp request timed out")

// CallTool calls tool of server with args, bounded by the server's timeout
// (restarted by every progress notification) and by ctx. progress, when
// set, receives the server's progress reports. The result's text is the
// concatenated text content in full; images, audio and binary resources
// become attachments; an isError answer is a *ToolError.
func (m *Manager) CallTool(ctx context.Context, server, name string, args map[string]any, progress func(title string, metadata map[string]any)) (*tool.Result, error) {
	s, c, err := m.session(server)
	if err != nil {
		return nil, err
	}
	ctx, finish, timedOut := m.requestContext(ctx, s)
	defer finish()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	token := fmt.Sprintf("codeloop-%d", m.progressID.Add(1))
	params.SetProgressToken(token)
	m.progress.Store(token, func(p *sdk.ProgressNotificationParams) {
		timedOut.reset()
		if progress != nil {
			md := map[string]any{"progress": p.Progress}
			if p.Total > 0 {
				md["total"] = p.Total
			}
			progress(p.Message, md)
		}
	})
	defer m.progress.Delete(token)
	res, err := c.session.CallTool(ctx, params)
	if err != nil {
		return nil, m.requestError(s, c, "the call of "+name, err, timedOut)
	}
	out, atts := contentToText(res.Content)
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out = string(b)
		}
	}
	if res.IsError {
		return nil, &ToolError{Server: s.name, Tool: name, Message: out}
	}
	return &tool.Result{Output: out, Attachments: atts}, nil
}

// requestError explains why a request to a server failed.
func (m *Manager) requestError(s *server, c *conn, what string, err error, d *deadline) error {
	switch {
	case d.expired():
		return &TimeoutError{Server: s.name, What: what, After: d.limit}
	case errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		cerr := fmt.Errorf("the server closed the connection during %s", what)
		m.fail(s, c, cerr)
		return fmt.Errorf("MCP server %q closed the connection during %s: %w", s.name, what, err)
	}
	return fmt.Errorf("MCP server %q: %s: %w", s.name, what, err)
}

// deadline cancels a request's context after limit, unless reset first.
type deadline struct {
	limit  time.Duration
	timer  *time.Timer
	cancel context.CancelCauseFunc
	ctx    context.Context

	mu       sync.Mutex
	finished bool
}

// reset restarts the countdown, unless the request has finished.
func (d *deadline) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.finished {
		d.timer.Reset(d.limit)
	}
}

func (d *deadline) expired() bool { return errors.Is(context.Cause(d.ctx), errTimeout) }

// requestContext derives the context of one request to s: cancelled by ctx,
// by the manager closing, and by the server's timeout.
func (m *Manager) requestContext(ctx context.Context, s *server) (context.Context, func(), *deadline) {
	cctx, cancel := context.WithCancelCause(ctx)
	d := &deadline{limit: m.callTimeout(s.cfg), cancel: cancel, ctx: cctx}
	d.timer = time.AfterFunc(d.limit, func() { cancel(errTimeout) })
	stop := context.AfterFunc(m.ctx, func() { cancel(errors.New("codeloop is shutting down")) })
	return cctx, func() {
		d.mu.Lock()
		d.finished = true
		d.timer.Stop()
		d.mu.Unlock()
		stop()
		cancel(nil)
	}, d
}

// contentToText turns MCP content into text and attachments.
func contentToText(content []sdk.Content) (string, []tool.Attachment) {
	var texts []string
	var atts []tool.Attachment
	for _, c := range content {
		switch c := c.(type) {
		case *sdk.TextContent:
			texts = append(texts, c.Text)
		case *sdk.ImageContent:
			atts = append(atts, dataAttachment(c.MIMEType, "", c.Data))
		case *sdk.AudioContent:
			atts = append(atts, dataAttachment(c.MIMEType, "", c.Data))
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil {
				t, a := resourceContents(r)
				if t != "" {
					texts = append(texts, t)
				}
				atts = append(atts, a...)
			}
		case *sdk.ResourceLink:
			link := "Resource " + c.URI
			if c.Name != "" {
				link += " (" + c.Name + ")"
			}
			if c.Description != "" {
				link += ": " + c.Description
			}
			texts = append(texts, link)
		}
	}
	return strings.Join(texts, "\n\n"), atts
}

// resourceContents turns one resource's contents into text or an
// attachment.
func resourceContents(r *sdk.ResourceContents) (string, []tool.Attachment) {
	if r.Blob != nil {
		return "", []tool.Attachment{dataAttachment(r.MIMEType, r.URI, r.Blob)}
	}
	return r.Text, nil
}

func dataAttachment(mime, filename string, data []byte) tool.Attachment {
	if mime == "" {
		mime = "application/octet-stream"
	}
	return tool.Attachment{
		Mime:     mime,
		Filename: filename,
		URL:      "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data),
	}
}
