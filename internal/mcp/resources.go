package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// Resource is a resource a server offers, referred to in prompts as
// @<server>:<uri>.
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Resources lists the resources of every connected server that has any, or
// of server alone when it is not empty. A server whose list fails is
// reported in the error; the others' resources are still returned.
func (m *Manager) Resources(ctx context.Context, server string) ([]Resource, error) {
	var names []string
	if server != "" {
		s, err := m.lookup(server)
		if err != nil {
			return nil, err
		}
		names = []string{s.name}
	} else {
		m.mu.RLock()
		for name, s := range m.servers {
			if s.conn != nil && hasResources(s.conn) {
				names = append(names, name)
			}
		}
		m.mu.RUnlock()
		slices.Sort(names)
	}
	var out []Resource
	var errs []error
	for _, name := range names {
		rs, err := m.serverResources(ctx, name)
		out = append(out, rs...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

func (m *Manager) serverResources(ctx context.Context, name string) ([]Resource, error) {
	s, c, err := m.session(name)
	if err != nil {
		return nil, err
	}
	ctx, finish, d := m.requestContext(ctx, s)
	defer finish()
	var out []Resource
	for r, err := range c.session.Resources(ctx, nil) {
		if err != nil {
			return out, m.requestError(s, c, "the resource list", err, d)
		}
		out = append(out, Resource{Server: s.name, URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType})
	}
	return out, nil
}

// ResourceContent is a resource as read: its text contents joined, and its
// binary contents as attachments.
type ResourceContent struct {
	Text        string
	Attachments []tool.Attachment
}

// ReadResource reads uri from server; the prompt layer uses it for
// @server:uri references.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*ResourceContent, error) {
	s, c, err := m.session(server)
	if err != nil {
		return nil, err
	}
	ctx, finish, d := m.requestContext(ctx, s)
	defer finish()
	res, err := c.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, m.requestError(s, c, "reading "+uri, err, d)
	}
	out := &ResourceContent{}
	var texts []string
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		t, atts := resourceContents(rc)
		if t != "" {
			texts = append(texts, t)
		}
		out.Attachments = append(out.Attachments, atts...)
	}
	out.Text = strings.Join(texts, "\n\n")
	return out, nil
}

// listResourcesTool lets the model see the servers' resources.
type listResourcesTool struct{ m *Manager }

func (*listResourcesTool) ID() string { return "list_mcp_resources" }

// Traits say the tool lists and changes nothing.
func (*listResourcesTool) Traits() tool.Traits {
	return tool.Traits{Kind: tool.KindSearch, Contained: true}
}

// Touches returns nil: resources are not the project's files.
func (*listResourcesTool) Touches(json.RawMessage, string) []tool.Touch { return nil }

// Summary is the server whose resources a call lists, or "all servers".
func (*listResourcesTool) Summary(input json.RawMessage, _ string) string {
	var in struct {
		Server string `json:"server"`
	}
	_ = json.Unmarshal(input, &in)
	if in.Server == "" {
		return "all servers"
	}
	return in.Server
}

func (*listResourcesTool) Description() string {
	return "Lists the resources the connected MCP servers offer (files, documents, records), " +
		"with the server and URI to pass to read_mcp_resource. Give server to list one server's only."
}

func (*listResourcesTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"Only list the resources of this MCP server"}}}`)
}

func (t *listResourcesTool) Run(ctx context.Context, call *tool.Call) (*tool.Result, error) {
	var in struct {
		Server string `json:"server"`
	}
	if err := decodeInput(call.Input, &in); err != nil {
		return nil, err
	}
	rs, err := t.m.Resources(ctx, in.Server)
	if err != nil && len(rs) == 0 {
		return nil, err
	}
	if rs == nil {
		rs = []Resource{}
	}
	b, _ := json.MarshalIndent(rs, "", "  ")
	out := string(b)
	if err != nil {
		out += "\n\nSome servers could not be listed: " + err.Error()
	}
	res := &tool.Result{Title: fmt.Sprintf("%d resources", len(rs)), Output: out}
	t.m.truncate(res, call)
	return res, nil
}

// readResourceTool lets the model read one resource.
type readResourceTool struct{ m *Manager }

func (*readResourceTool) ID() string { return "read_mcp_resource" }

// Traits say the tool reads and changes nothing.
func (*readResourceTool) Traits() tool.Traits {
	return tool.Traits{Kind: tool.KindRead, Contained: true}
}

// Touches returns nil: resources are not the project's files.
func (*readResourceTool) Touches(json.RawMessage, string) []tool.Touch { return nil }

// Summary is the resource a call reads, as server and URI.
func (*readResourceTool) Summary(input json.RawMessage, _ string) string {
	var in struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	_ = json.Unmarshal(input, &in)
	if in.Server == "" {
		return in.URI
	}
	return in.Server + ": " + in.URI
}

func (*readResourceTool) Description() string {
	return "Reads a resource of an MCP server by its URI, as listed by list_mcp_resources."
}

func (*readResourceTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"server":{"type":"string","description":"The MCP server that offers the resource"},` +
		`"uri":{"type":"string","description":"The resource's URI"}},"required":["server","uri"]}`)
}

func (t *readResourceTool) Run(ctx context.Context, call *tool.Call) (*tool.Result, error) {
	var in struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if err := decodeInput(call.Input, &in); err != nil {
		return nil, err
	}
	if in.Server == "" || in.URI == "" {
		return nil, errors.New("both server and uri are required")
	}
	if err := call.Ask(ctx, permission.Request{
		Permission: "read",
		Patterns:   []string{"mcp:" + in.Server + ":" + in.URI},
		Always:     []string{"mcp:" + in.Server + ":*"},
		Metadata:   map[string]any{"server": in.Server, "uri": in.URI},
	}); err != nil {
		return nil, err
	}
	rc, err := t.m.ReadResource(ctx, in.Server, in.URI)
	if err != nil {
		return nil, err
	}
	res := &tool.Result{Title: in.URI, Output: rc.Text, Attachments: rc.Attachments}
	t.m.truncate(res, call)
	return res, nil
}

func decodeInput(in json.RawMessage, v any) error {
	if len(in) == 0 || string(in) == "null" {
		return nil
	}
	if err := json.Unmarshal(in, v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}
