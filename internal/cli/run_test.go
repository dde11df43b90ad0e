package cli

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/session"
)

// fakeModelProject writes a project whose default model is served by
// steps over the OpenAI Chat Completions wire format, and moves into it.
func fakeModelProject(t *testing.T, steps ...fakellm.Step) (project string, model *fakellm.Server) {
	t.Helper()
	model = fakellm.NewServer(steps...)
	srv := httptest.NewServer(model)
	t.Cleanup(srv.Close)
	_, project = agentProject(t, fmt.Sprintf(`{
  "model": "fake/model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"},
                        "models": {"model": {"name": "Fake", "limit": {"context": 100000, "output": 4000}}}}}
}`, srv.URL))
	clearProviderEnv(t)
	t.Setenv("CODELOOP_DISABLE_MODELS_FETCH", "1")
	return project, model
}

// TestRunContinuePrintsOnlyThisRun continues a session whose last answer
// was cut off while a call ran. Starting the loop repairs that call into
// an error; run must not print it as if it failed now.
func TestRunContinuePrintsOnlyThisRun(t *testing.T) {
	project, model := fakeModelProject(t,
		append(fakellm.Text("t", "Picking up again."), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 3, Output: 3})...))
	dirs, err := paths.Resolve(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Dir: project, Dirs: dirs, Getenv: os.Getenv,
		Log: slog.New(slog.DiscardHandler), Version: Version, NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	sess, err := a.Sessions.Create(ctx, session.CreateInput{ProjectID: a.ProjectID, Directory: project, Title: "interrupted"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	ref := message.ModelRef{ProviderID: "fake", ModelID: "model"}
	user := message.Info{ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleUser,
		Time: message.Time{Created: now}, Agent: "build", Model: ref}
	answer := message.Info{ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleAssistant,
		Time: message.Time{Created: now}, ParentID: user.ID, ModelID: "model", ProviderID: "fake", Mode: "build", Agent: "build"}
	call := &message.ToolPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sess.ID, MessageID: answer.ID},
		CallID: "call_1", Tool: "bash",
		State: message.ToolState{Status: message.ToolRunning, Input: []byte(`{"command":"sleep 100"}`), Time: message.ToolTime{Start: now}}}
	for _, m := range []message.Info{user, answer} {
		if err := a.Sessions.PutMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []message.Part{
		&message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sess.ID, MessageID: user.ID}, Text: "wait a while"},
		call,
	} {
		if err := a.Sessions.PutPart(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()

	code, out, errOut := runCLI(t, "", "run", "-c", "go on")
	if code != 0 {
		t.Fatalf("run -c: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "Picking up again.") {
		t.Errorf("stdout lacks this run's answer:\n%s", out)
	}
	for _, s := range []string{out, errOut} {
		if strings.Contains(s, "aborted") || strings.Contains(s, "✗") {
			t.Errorf("run printed the earlier run's repaired call:\nstdout:\n%s\nstderr:\n%s", out, errOut)
		}
	}
	// The call was repaired, and the model was told so.
	if reqs := model.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Tool execution aborted") {
		t.Errorf("the request does not carry the repaired call: %d requests", len(reqs))
	}
}
