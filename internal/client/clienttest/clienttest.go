// Package clienttest is the contract every implementation of
// client.Client keeps: Run plays the same scenarios (sessions, prompts and
// their events, permission and question replies, aborts, shell and slash
// commands, catalogs, event streams that leak nothing) against a real
// engine on a temporary project whose model is a scripted fake server
// speaking the OpenAI wire format.
//
// An implementation's test calls Run with an Opener that starts the
// implementation on the project it is given.
package clienttest

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/paths"
)

// Project is a temporary project directory with its own home, whose
// config names the scripted model "fake/model" (and "titles/small" for
// session titles).
type Project struct {
	Dir    string
	Dirs   paths.Dirs
	Getenv func(string) string
	// Model plays the script of the test and records its requests.
	Model *fakellm.Server
}

// Opener starts the implementation under test on p. It registers the
// cleanup of what it starts (t.Cleanup); the suite closes the client
// itself before that.
type Opener func(t *testing.T, p *Project) client.Client

// Timeout bounds every wait of the suite.
const Timeout = 30 * time.Second

// NewProject makes a project whose model plays script (fakellm.Parse's
// language) and whose config adds extra, a JSON object's members without
// braces (empty for none), and whose directory holds files.
func NewProject(t testing.TB, script, extra string, files map[string]string) *Project {
	t.Helper()
	steps, err := fakellm.Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	p := &Project{Dir: filepath.Join(root, "project"), Model: fakellm.NewServer(steps...)}
	home := filepath.Join(root, "home")
	titles := fakellm.NewServer(append(fakellm.Text("t", "A title"), fakellm.Finish(llm.FinishStop, llm.Usage{})...))
	ms, ts := httptest.NewServer(p.Model), httptest.NewServer(titles)
	t.Cleanup(func() { ms.Close(); ts.Close() })
	vars := map[string]string{
		"HOME":                             home,
		"PATH":                             os.Getenv("PATH"),
		"OLLAMA_HOST":                      "127.0.0.1:1", // no local model server
		"XDG_CONFIG_HOME":                  filepath.Join(home, ".config"),
		"XDG_DATA_HOME":                    filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME":                   filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":                   filepath.Join(home, ".local/state"),
		"CODELOOP_DISABLE_MODELS_FETCH":    "1",
		"CODELOOP_DISABLE_CLAUDE_CODE":     "1",
		"CODELOOP_DISABLE_EXTERNAL_SKILLS": "1",
	}
	p.Getenv = func(k string) string { return vars[k] }
	if p.Dirs, err = paths.Resolve(p.Getenv); err != nil {
		t.Fatal(err)
	}
	files = withFile(files, "opencode.json", fmt.Sprintf(`{
  "model": "fake/model",
  "small_model": "titles/small",
  "provider": {
    "fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"},
             "models": {"model": {"name": "Fake", "limit": {"context": 100000, "output": 4000}}}},
    "titles": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"},
               "models": {"small": {}}}
  }%s
}`, ms.URL, ts.URL, prefixComma(extra)))
	for _, d := range []string{p.Dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		path := filepath.Join(p.Dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func withFile(files map[string]string, name, data string) map[string]string {
	out := map[string]string{name: data}
	for k, v := range files {
		out[k] = v
	}
	return out
}

func prefixComma(s string) string {
	if s == "" {
		return ""
	}
	return ",\n  " + s
}

// Run plays the contract's scenarios against the implementation open
// starts.
func Run(t *testing.T, open Opener) {
	s := suite{open: open}
	t.Run("Sessions", s.sessions)
	t.Run("MissingRecords", s.missing)
	t.Run("PromptStreamsTheAnswer", s.prompt)
	t.Run("PromptNeedsContent", s.emptyPrompt)
	t.Run("MessagesPage", s.messagesPage)
	t.Run("PermissionOnce", s.permissionOnce)
	t.Run("PermissionRejectWithMessage", s.permissionReject)
	t.Run("PermissionAlwaysProject", s.permissionAlways)
	t.Run("Question", s.question)
	t.Run("AbortKeepsWhatStreamed", s.abort)
	t.Run("Shell", s.shell)
	t.Run("ShellAbort", s.shellAbort)
	t.Run("ShellWhileBusy", s.shellBusy)
	t.Run("PromptWhileShell", s.shellThenPrompt)
	t.Run("ShellRevert", s.shellRevert)
	t.Run("Command", s.command)
	t.Run("Catalogs", s.catalogs)
	t.Run("ContextUsage", s.contextUsage)
	t.Run("Revert", s.revert)
	t.Run("EventsFilterAndClose", s.eventsClose)
	t.Run("EventsLeakNothing", s.eventsLeak)
}

type suite struct{ open Opener }

// start opens a client on a new project and closes it at the end.
func (s suite) start(t *testing.T, script, extra string, files map[string]string) (client.Client, *Project) {
	t.Helper()
	p := NewProject(t, script, extra, files)
	c := s.open(t, p)
	t.Cleanup(func() { _ = c.Close() })
	return c, p
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	t.Cleanup(cancel)
	return ctx
}

// until reads events until done says stop, and returns them all.
func until(t *testing.T, ev client.Events, done func(client.Event) bool) []client.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	var got []client.Event
	for {
		e, err := ev.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for an event after %d: %v\nlast: %s", len(got), err, describe(got))
		}
		got = append(got, e)
		if done(e) {
			return got
		}
	}
}

func describe(evs []client.Event) string {
	out := ""
	for i := max(0, len(evs)-8); i < len(evs); i++ {
		b, _ := client.MarshalEvent(evs[i])
		out += string(b) + "\n"
	}
	return out
}

// idle matches the event that says sessionID went idle.
func idle(sessionID string) func(client.Event) bool {
	return func(e client.Event) bool {
		st, ok := e.(client.SessionStatusEvent)
		return ok && st.SessionID == sessionID && st.Status.Type == client.StatusIdle
	}
}

// must returns a function that fails the test on err or returns v:
// must(c.GetSession(ctx, id))(t).
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want one wrapping %v", what, err, target)
	}
}
