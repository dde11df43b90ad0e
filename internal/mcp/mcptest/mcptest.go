// Package mcptest serves a small MCP server over streamable HTTP (or, from
// a test binary, over stdio) for the tests of packages that use MCP tools
// through internal/mcp: the session loop's scenarios, the app wiring, the
// binary's end-to-end tests. It records every call it answers.
//
// Only tests import it.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codeloop/codeloop/internal/config"
)

// Instructions are the instructions the server gives.
const Instructions = "Use echo to repeat text and add to add numbers."

// Call is one tool call the server answered.
type Call struct {
	Tool      string
	Arguments map[string]any
}

// Server is a running test server. Its tools are echo {text} (answers the
// text), add {a, b} (answers the sum) and fail (answers an isError result
// "it failed"); its prompt greet {name} expands to "Say hello to <name>.";
// its resource test://readme reads "# Read me".
type Server struct {
	// URL is the server's MCP endpoint.
	URL string

	mu    sync.Mutex
	calls []Call
}

// Start serves a new test server until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	srv := s.server()
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/mcp"
	return s
}

// EnvStdio is the environment variable that tells a test binary to serve
// the test server over stdio (ServeStdio) instead of running its tests.
const EnvStdio = "CODELOOP_MCPTEST_STDIO"

// ServeStdio serves the test server over standard input and output until
// the client goes away, for tests that configure it as a local server: the
// test binary, started with EnvStdio set, calls it before its tests run.
// Over stdio the server has one more tool, crash, which ends the process
// (exit status 3) in the middle of the call.
func ServeStdio(ctx context.Context) error {
	return serve(ctx, &sdk.StdioTransport{}, func() { os.Exit(3) })
}

// serve serves the test server over transport, with the crash tool
// calling crash.
func serve(ctx context.Context, transport sdk.Transport, crash func()) error {
	s := &Server{}
	srv := s.server()
	s.tool(srv, "crash", "Ends the server in the middle of the call", `{"type":"object","properties":{}}`,
		func(map[string]any) (string, bool) {
			crash()
			return "still running", true
		})
	return srv.Run(ctx, transport)
}

// server builds the MCP server that answers for s.
func (s *Server) server() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1.0.0"}, &sdk.ServerOptions{Instructions: Instructions})
	s.tool(srv, "echo", "Repeat the text", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		func(args map[string]any) (string, bool) { return fmt.Sprint(args["text"]), false })
	s.tool(srv, "add", "Add two numbers", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`,
		func(args map[string]any) (string, bool) {
			a, _ := args["a"].(float64)
			b, _ := args["b"].(float64)
			return fmt.Sprint(a + b), false
		})
	s.tool(srv, "fail", "Always fails", `{"type":"object","properties":{}}`,
		func(map[string]any) (string, bool) { return "it failed", true })
	srv.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greet someone", Arguments: []*sdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
				{Role: "user", Content: &sdk.TextContent{Text: "Say hello to " + req.Params.Arguments["name"] + "."}},
			}}, nil
		})
	srv.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/markdown"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Read me"}}}, nil
		})
	return srv
}

func (s *Server) tool(srv *sdk.Server, name, desc, schema string, answer func(map[string]any) (string, bool)) {
	srv.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			s.mu.Lock()
			s.calls = append(s.calls, Call{Tool: name, Arguments: args})
			s.mu.Unlock()
			text, isErr := answer(args)
			return &sdk.CallToolResult{IsError: isErr, Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
		})
}

// Config is the config entry of the server.
func (s *Server) Config() config.MCP {
	return config.MCP{Type: "remote", URL: s.URL}
}

// Calls returns the calls answered so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}
