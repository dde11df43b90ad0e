package acp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// MCPServer is an MCP server the editor passes in session/new or
// session/load, to be connected for that session beside the project's
// own. A local server has Command (started with Args, Env added to its
// environment); a remote one has URL and Headers (streamable HTTP, falling
// back to SSE).
type MCPServer struct {
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// mcpServers converts the editor's servers, sorted by name. A server
// without a name, or a name used twice, is an invalid-params error.
func mcpServers(in []sdk.McpServer) ([]MCPServer, error) {
	var out []MCPServer
	for i, s := range in {
		var m MCPServer
		switch {
		case s.Stdio != nil:
			m = MCPServer{Name: s.Stdio.Name, Command: s.Stdio.Command, Args: s.Stdio.Args}
			for _, e := range s.Stdio.Env {
				if m.Env == nil {
					m.Env = map[string]string{}
				}
				m.Env[e.Name] = e.Value
			}
			if m.Command == "" {
				return nil, invalidParams(fmt.Sprintf("mcpServers[%d] (%q) has no command", i, m.Name))
			}
		case s.Http != nil:
			m = MCPServer{Name: s.Http.Name, URL: s.Http.Url, Headers: headers(s.Http.Headers)}
		case s.Sse != nil:
			m = MCPServer{Name: s.Sse.Name, URL: s.Sse.Url, Headers: headers(s.Sse.Headers)}
		default:
			return nil, invalidParams(fmt.Sprintf("mcpServers[%d]: codeloop connects stdio, http and sse servers", i))
		}
		if strings.TrimSpace(m.Name) == "" {
			return nil, invalidParams(fmt.Sprintf("mcpServers[%d] has no name", i))
		}
		if s.Stdio == nil && m.URL == "" {
			return nil, invalidParams(fmt.Sprintf("mcpServers[%d] (%q) has no url", i, m.Name))
		}
		if slices.ContainsFunc(out, func(o MCPServer) bool { return o.Name == m.Name }) {
			return nil, invalidParams(fmt.Sprintf("mcpServers: the name %q is used twice", m.Name))
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b MCPServer) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// clientKey names the client of a directory with a set of editor servers:
// sessions given the same servers share one.
func clientKey(dir string, servers []MCPServer) string {
	if len(servers) == 0 {
		return dir
	}
	b, _ := json.Marshal(servers) // maps are encoded with sorted keys
	return dir + "\x00" + string(b)
}
