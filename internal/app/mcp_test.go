package app

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/mcp/mcptest"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
)

// TestMCPToolThroughLoop runs a turn in which the scripted model calls an
// MCP tool the config asks about: the ask names the tool, the user
// approves it once, the call reaches the server and its result reaches the
// model, which answers.
func TestMCPToolThroughLoop(t *testing.T) {
	t.Parallel()
	steps, err := fakellm.Parse(`
step
call call_1 tools_echo {"text":"ping from the model"}
finish tool-calls
step
text The server said ping.
finish stop
`)
	if err != nil {
		t.Fatal(err)
	}
	model := fakellm.NewServer(steps...)
	ms := httptest.NewServer(model)
	t.Cleanup(ms.Close)
	srv := mcptest.Start(t)
	root := t.TempDir()
	dir, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	writeFiles(t, dir, map[string]string{"opencode.json": fmt.Sprintf(`{
  "model": "fake/model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"},
                        "models": {"model": {"limit": {"context": 100000, "output": 4000}}}}},
  "mcp": {"tools": {"type": "remote", "url": %q, "oauth": false}},
  "permission": {"tools_echo": "ask"}
}`, ms.URL, srv.URL)})
	env := map[string]string{"HOME": home, "CODELOOP_DISABLE_MODELS_FETCH": "1", "OLLAMA_HOST": "127.0.0.1:1"}
	getenv := func(k string) string { return env[k] }
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Dir: dir, Dirs: dirs, Getenv: getenv, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sub := a.Bus.Subscribe(bus.Filter{Types: []string{bus.PermissionAsked}}, 4)
	defer sub.Close()
	asked := make(chan permission.Request, 4)
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			case ev := <-sub.C:
				req, _ := ev.Properties.(permission.Request)
				asked <- req
				if err := a.Permissions.Reply(ctx, req.ID, permission.Reply{Kind: permission.ReplyOnce}); err != nil {
					t.Errorf("reply: %v", err)
				}
			}
		}
	}()
	defer func() { close(stop); <-stopped }()

	sess, err := a.Sessions.Create(ctx, session.CreateInput{ProjectID: a.ProjectID, Directory: a.Dir, Title: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Engine.Prompt(ctx, session.PromptInput{SessionID: sess.ID, Parts: []message.Part{session.TextPart("echo through the server")}}); err != nil {
		t.Fatal(err)
	}
	select {
	case req := <-asked:
		if req.Permission != "tools_echo" || req.Tool == nil || req.Tool.CallID != "call_1" {
			t.Errorf("ask = %+v, want tools_echo for call_1", req)
		}
	default:
		t.Fatal("no permission was asked")
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Tool != "echo" || calls[0].Arguments["text"] != "ping from the model" {
		t.Errorf("server calls = %+v", calls)
	}
	reqs := model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), `"tool_call_id":"call_1"`) ||
		!strings.Contains(string(reqs[1].Body), "ping from the model") {
		t.Fatalf("%d requests; the last: %s", len(reqs), reqs[len(reqs)-1].Body)
	}
	msgs, err := a.Sessions.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var state message.ToolStatus
	for _, m := range msgs {
		for _, p := range m.Parts {
			if tp, ok := p.(*message.ToolPart); ok && tp.Tool == "tools_echo" {
				state = tp.State.Status
			}
		}
	}
	if state != message.ToolCompleted {
		t.Errorf("the call's state is %q", state)
	}
}
