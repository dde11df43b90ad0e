package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// The test binary doubles as a stdio MCP server when this variable is set;
// testServerDelay makes it wait before serving, like a slow server.
const (
	envTestServer   = "CODELOOP_MCP_TEST_SERVER"
	envTestDelay    = "CODELOOP_MCP_TEST_DELAY"
	testInstruction = "Use echo to repeat text."
)

func TestMain(m *testing.M) {
	if os.Getenv(envTestServer) != "" {
		os.Exit(runTestServer())
	}
	goleak.VerifyTestMain(m)
}

func runTestServer() int {
	if d, err := time.ParseDuration(os.Getenv(envTestDelay)); err == nil {
		time.Sleep(d) // not a wait: the server under test is slow to start
	}
	fmt.Fprintln(os.Stderr, "test server starting")
	if err := newTestServer(nil).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// tinyPNG is a 1x1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func schema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

func args(req *sdk.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// newTestServer builds the server every unit test talks to. Its hanging
// tool ends when the call is cancelled or stop is closed.
func newTestServer(stop <-chan struct{}) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "testserver", Version: "1.0.0"}, &sdk.ServerOptions{
		Instructions: testInstruction,
		Capabilities: &sdk.ServerCapabilities{
			Tools:     &sdk.ToolCapabilities{ListChanged: true},
			Prompts:   &sdk.PromptCapabilities{},
			Resources: &sdk.ResourceCapabilities{},
		},
	})
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the text", InputSchema: schema(`"text":{"type":"string"}`, "text")},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(fmt.Sprint(args(req)["text"])), nil
		})
	s.AddTool(&sdk.Tool{Name: "add", Description: "Add two numbers", InputSchema: schema(`"a":{"type":"number"},"b":{"type":"number"}`, "a", "b")},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			a := args(req)
			return text(strconv.FormatFloat(a["a"].(float64)+a["b"].(float64), 'f', -1, 64)), nil
		})
	s.AddTool(&sdk.Tool{Name: "image", Description: "Return an image", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here is a pixel"},
				&sdk.ImageContent{MIMEType: "image/png", Data: tinyPNG},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://note", MIMEType: "text/plain", Text: "embedded note"}},
			}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the disk is on fire"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answers", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-stop:
				return nil, errors.New("the server is stopping")
			}
		})
	s.AddTool(&sdk.Tool{Name: "crash", Description: "Exits the server process", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if os.Getenv(envTestServer) != "" {
				os.Exit(3)
			}
			return nil, errors.New("crash only works in a child process")
		})
	s.AddTool(&sdk.Tool{Name: "slow", Description: "Reports progress, then answers", InputSchema: schema(`"steps":{"type":"integer"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			steps := int(args(req)["steps"].(float64))
			for i := range steps {
				if tok := req.Params.GetProgressToken(); tok != nil {
					_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1), Total: float64(steps), Message: "step"})
				}
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return text("done"), nil
		})
	s.AddTool(&sdk.Tool{Name: "grow", Description: "Adds the tool late", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s.AddTool(&sdk.Tool{Name: "late", Description: "Added later", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("late"), nil })
			return text("grown"), nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greet someone", Arguments: []*sdk.PromptArgument{
		{Name: "name", Required: true}, {Name: "mood"},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		a := req.Params.Arguments
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: "Say hello to " + a["name"] + "."}},
			{Role: "user", Content: &sdk.TextContent{Text: "They feel " + a["mood"] + "."}},
		}}, nil
	})
	s.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/markdown", Description: "The readme"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Read me"}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://logo", Name: "logo", MIMEType: "image/png"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: tinyPNG}}}, nil
		})
	return s
}

// localServer is the config of the test binary run as a stdio server.
func localServer(t *testing.T, env ...string) config.MCP {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{envTestServer: "1"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return config.MCP{Type: "local", Command: []string{exe}, Environment: e}
}

// httpServer serves the test server over streamable HTTP.
func httpServer(t *testing.T) string {
	t.Helper()
	stop := make(chan struct{})
	srv := newTestServer(stop)
	return serveHTTP(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil), stop)
}

// serveHTTP serves h until the test ends; calls still hanging on srv
// are released first so that closing the server does not wait for them.
func serveHTTP(t *testing.T, h http.Handler, stop chan struct{}) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(stop) })
	return ts.URL
}

// testHTTPClient is an HTTP client whose idle connections are closed when
// the test ends, so that goleak sees no stray goroutine.
func testHTTPClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// start starts a manager on servers and waits for every first connection.
func start(t *testing.T, servers map[string]config.MCP, opts Options) *Manager {
	t.Helper()
	if opts.HTTPClient == nil {
		opts.HTTPClient = testHTTPClient(t)
	}
	m := Start(servers, opts)
	t.Cleanup(func() { _ = m.Close() })
	if !m.WaitReady(context.Background(), 30*time.Second) {
		t.Fatalf("servers not ready after 30s: %v", m.Status())
	}
	return m
}

// recordAsker approves every request and remembers it.
type recordAsker struct {
	mu   sync.Mutex
	reqs []permission.Request
	deny bool
}

func (a *recordAsker) Ask(_ context.Context, req permission.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, req)
	if a.deny {
		return &permission.RejectedError{Permission: req.Permission}
	}
	return nil
}

func (a *recordAsker) requests() []permission.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]permission.Request(nil), a.reqs...)
}

// eventually waits until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitfor.Until(t, what, cond)
}

// sseServer serves the test server over the older SSE transport only.
func sseServer(t *testing.T) string {
	t.Helper()
	stop := make(chan struct{})
	srv := newTestServer(stop)
	return serveHTTP(t, sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil), stop)
}

// httpServerWith serves the test server over streamable HTTP to requests
// whose X-Api-Key header satisfies ok, and answers 401 to the others.
func httpServerWith(t *testing.T, ok func(string) bool) string {
	t.Helper()
	stop := make(chan struct{})
	srv := newTestServer(stop)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	return serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ok(r.Header.Get("X-Api-Key")) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}), stop)
}
