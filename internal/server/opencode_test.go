package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/client/local"
)

// newRigConfig is newRig with extra config members (clienttest.NewProject's
// extra), returning the project's directory too.
func newRigConfig(t *testing.T, script, extra string) (*rig, string) {
	t.Helper()
	p := clienttest.NewProject(t, script, extra, nil)
	a, err := app.Open(context.Background(), app.Options{Dir: p.Dir, Dirs: p.Dirs, Getenv: p.Getenv, NoMCP: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	lc := local.New(a)
	hs := httptest.NewUnstartedServer(nil)
	host := hs.Listener.Addr().String()
	srv, err := New(lc, Options{Token: testToken, Hosts: []string{host}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = srv
	hs.Start()
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		_ = lc.Close()
		_ = a.Close()
	})
	return &rig{t: t, c: lc, srv: srv, http: hs, host: host}, p.Dir
}

// stream opens an event stream at path and returns a function that reads
// its next event's data.
func (r *rig) stream(ctx context.Context, path string) func() map[string]any {
	r.t.Helper()
	resp, err := r.http.Client().Do(r.request("GET", path, "").WithContext(ctx))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != 200 {
		r.t.Fatalf("GET %s: status %d", path, resp.StatusCode)
	}
	rd := bufio.NewReader(resp.Body)
	return func() map[string]any {
		r.t.Helper()
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				r.t.Fatalf("GET %s: %v", path, err)
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var v map[string]any
				if err := json.Unmarshal([]byte(data), &v); err != nil {
					r.t.Fatalf("event %q: %v", data, err)
				}
				return v
			}
		}
	}
}

// TestGlobalEvent: GET /global/event carries every event in OpenCode's
// envelope {directory, payload}, and a turn's end is told by session.idle
// right after session.status idle, there as on GET /event.
func TestGlobalEvent(t *testing.T) {
	r, dir := newRigConfig(t, "step\ntext ok\nfinish stop\n", "")
	ctx, cancel := context.WithTimeout(context.Background(), clienttest.Timeout)
	defer cancel()
	sess, err := r.c.CreateSession(ctx, client.CreateSessionInput{})
	if err != nil {
		t.Fatal(err)
	}
	global := r.stream(ctx, "/global/event")
	plain := r.stream(ctx, "/event")
	first := global()
	if first["directory"] != dir {
		t.Errorf("envelope directory %v, want %s", first["directory"], dir)
	}
	if p, _ := first["payload"].(map[string]any); p["type"] != TypeServerConnected {
		t.Fatalf("first event %v, want server.connected in its payload", first)
	}
	if e := plain(); e["type"] != TypeServerConnected {
		t.Fatalf("first event of /event %v", e)
	}
	if _, err := r.c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("hi")}}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for name, next := range map[string]func() map[string]any{
		"/global/event": func() map[string]any {
			e := global()
			if e["directory"] != dir {
				t.Errorf("envelope %v without the directory", e)
			}
			p, _ := e["payload"].(map[string]any)
			if id, _ := p["id"].(string); !strings.HasPrefix(id, "evt_") || ids[id] {
				t.Errorf("event id %q: want a new evt_ id", id)
			} else {
				ids[id] = true
			}
			return p
		},
		"/event": plain,
	} {
		idle := false
		for {
			e := next()
			props, _ := e["properties"].(map[string]any)
			if props["sessionID"] != sess.ID && e["type"] != "session.updated" {
				continue
			}
			if e["type"] == client.TypeSessionStatus {
				st, _ := props["status"].(map[string]any)
				idle = st["type"] == client.StatusIdle
				continue
			}
			if e["type"] == client.TypeSessionIdle {
				if !idle {
					t.Errorf("%s: session.idle before session.status idle", name)
				}
				break
			}
		}
	}
}

// TestOpenCodeShapes: the bodies OpenCode's clients read have the shapes
// its SDK's types require.
func TestOpenCodeShapes(t *testing.T) {
	r, _ := newRigConfig(t, "step\ntext ok\nfinish stop input=10 output=2\n", "")
	ctx := context.Background()
	get := func(method, path, body string, want int) any {
		t.Helper()
		got, text := r.do(r.request(method, path, body))
		if got != want {
			t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, want, text)
		}
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, text)
		}
		return v
	}
	// has fails unless v holds every member named by the dotted paths.
	has := func(what string, v any, paths ...string) {
		t.Helper()
		for _, p := range paths {
			x := v
			for _, k := range strings.Split(p, ".") {
				m, ok := x.(map[string]any)
				if !ok {
					t.Errorf("%s: %s: %v is not an object", what, p, x)
					break
				}
				if x, ok = m[k]; !ok {
					t.Errorf("%s lacks %s: %v", what, p, v)
					break
				}
			}
		}
	}
	model := []string{"id", "providerID", "api.id", "api.url", "api.npm", "name", "capabilities.temperature", "capabilities.reasoning",
		"capabilities.attachment", "capabilities.toolcall", "capabilities.input.text", "capabilities.output.pdf", "capabilities.interleaved",
		"cost.input", "cost.output", "cost.cache.read", "cost.cache.write", "limit.context", "limit.output", "status", "options", "headers", "release_date"}
	providerFields := []string{"id", "name", "source", "env", "options", "models"}

	cfg := get("GET", "/config/providers", "", 200).(map[string]any)
	provs, _ := cfg["providers"].([]any)
	all := get("GET", "/provider", "", 200).(map[string]any)
	listed, _ := all["all"].([]any)
	for what, list := range map[string][]any{"/config/providers": provs, "/provider": listed} {
		found := false
		for _, p := range list {
			has(what+" provider", p, providerFields...)
			pm, _ := p.(map[string]any)
			models, ok := pm["models"].(map[string]any)
			if !ok {
				t.Fatalf("%s: models %T, want an object keyed by model id", what, pm["models"])
			}
			for id, m := range models {
				has(what+" model "+id, m, model...)
				if mm, _ := m.(map[string]any); mm["id"] != id {
					t.Errorf("%s: model keyed %q has id %v", what, id, mm["id"])
				}
				found = found || (pm["id"] == "fake" && id == "model")
			}
		}
		if !found {
			t.Errorf("%s: fake/model is not listed", what)
		}
	}

	for _, a := range get("GET", "/agent", "", 200).([]any) {
		has("agent", a, "name", "mode", "permission", "options")
		am, _ := a.(map[string]any)
		if rules, _ := am["permission"].([]any); am["name"] == "build" && len(rules) == 0 {
			t.Errorf("the build agent lists no permission rules: %v", a)
		}
	}

	sess, err := r.c.CreateSession(ctx, client.CreateSessionInput{})
	if err != nil {
		t.Fatal(err)
	}
	answer := get("POST", "/session/"+sess.ID+"/message", `{"parts":[{"type":"text","text":"hi"}]}`, 200)
	has("answer", answer, "info.cost", "info.tokens.input", "info.tokens.output", "info.tokens.reasoning", "info.tokens.cache.read", "info.tokens.cache.write",
		"info.parentID", "info.modelID", "info.providerID", "info.mode", "info.agent", "info.path.cwd")

	shell := get("POST", "/session/"+sess.ID+"/shell", `{"agent":"build","command":"echo shell-said"}`, 200)
	has("shell answer", shell, "info.id", "info.role", "info.cost", "parts", "id", "role", "sessionID")
	sm, _ := shell.(map[string]any)
	info, _ := sm["info"].(map[string]any)
	if sm["id"] != info["id"] || info["sessionID"] != sess.ID {
		t.Errorf("shell answer: the top-level id %v is not info's %v", sm["id"], info["id"])
	}
	if !strings.Contains(mustJSON(t, sm["parts"]), "shell-said") {
		t.Errorf("shell answer: the parts lack the command's output: %v", sm["parts"])
	}

	for _, tc := range []struct {
		method, path string
		status       int
		name         string
	}{
		{"GET", "/no/such/route", 404, "NotFoundError"},
		{"PUT", "/session/status", 405, "MethodNotAllowedError"},
	} {
		e := get(tc.method, tc.path, "", tc.status)
		has(tc.path, e, "name", "data.message")
		if em, _ := e.(map[string]any); em["name"] != tc.name {
			t.Errorf("%s %s: %v, want %s", tc.method, tc.path, e, tc.name)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSessionPermission: the rules a client sends with POST /session (as
// OpenCode's run --attach does) tighten the user's rules and never loosen
// them.
func TestSessionPermission(t *testing.T) {
	script := "step\ncall c1 bash {\"command\":\"echo ran > ran.txt\"}\nfinish tool-calls\nstep\ntext done\nfinish stop\n"
	cases := []struct {
		name, user, rules, want string
	}{
		{"no rules", "", "", "ran"},
		{"deny tightens allow", "", `[{"permission":"bash","pattern":"*","action":"deny"}]`, "denied"},
		{"a pattern's deny tightens allow", "", `[{"permission":"bash","pattern":"echo *","action":"deny"}]`, "denied"},
		{"ask tightens allow", "", `[{"permission":"bash","pattern":"echo *","action":"ask"}]`, "asked"},
		{"allow does not loosen ask", `"permission": {"bash": "ask"}`, `[{"permission":"*","pattern":"*","action":"allow"}]`, "asked"},
		{"allow does not loosen deny", `"permission": {"bash": "deny"}`, `[{"permission":"bash","pattern":"*","action":"allow"}]`, "denied"},
		{"other permissions untouched", "", `[{"permission":"webfetch","pattern":"*","action":"deny"}]`, "ran"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, dir := newRigConfig(t, script, tc.user)
			ctx, cancel := context.WithTimeout(context.Background(), clienttest.Timeout)
			defer cancel()
			body := `{"title":"rules"}`
			if tc.rules != "" {
				body = `{"title":"rules","permission":` + tc.rules + `}`
			}
			got, text := r.do(r.request("POST", "/session", body))
			if got != 200 {
				t.Fatalf("POST /session: %d %s", got, text)
			}
			var sess client.Session
			if err := json.Unmarshal([]byte(text), &sess); err != nil {
				t.Fatal(err)
			}
			ev, err := r.c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID})
			if err != nil {
				t.Fatal(err)
			}
			defer ev.Close()
			if _, err := r.c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("run it")}}); err != nil {
				t.Fatal(err)
			}
			outcome, toolError := "", ""
			for done := false; !done; {
				e, err := ev.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				switch e := e.(type) {
				case client.PermissionAskedEvent:
					outcome = "asked"
					if err := r.c.ReplyPermission(ctx, e.ID, client.PermissionReply{Reply: client.ReplyReject}); err != nil {
						t.Fatal(err)
					}
				case client.PartUpdatedEvent:
					// A denied call fails; a call of a tool denied
					// entirely finds it missing.
					if st := e.Part.State; st != nil && st.Status == "error" {
						toolError = st.Error
					} else if st != nil && st.Status == "completed" && strings.Contains(st.Output, "not available") {
						toolError = st.Output
					}
				case client.SessionIdleEvent:
					done = true
				}
			}
			_, statErr := os.Stat(filepath.Join(dir, "ran.txt"))
			switch {
			case statErr == nil:
				if outcome != "" {
					t.Fatalf("the command ran after it was %s", outcome)
				}
				outcome = "ran"
			case outcome == "" && toolError != "":
				outcome = "denied"
			}
			if outcome != tc.want {
				t.Errorf("outcome %q (tool error %q), want %s", outcome, toolError, tc.want)
			}
		})
	}
}

// TestSessionPermissionInvalid: a rule with an unknown action is refused.
func TestSessionPermissionInvalid(t *testing.T) {
	r, _ := newRigConfig(t, "", "")
	got, text := r.do(r.request("POST", "/session", `{"permission":[{"permission":"bash","pattern":"*","action":"maybe"}]}`))
	if got != 400 || !strings.Contains(text, "maybe") {
		t.Errorf("status %d: %s", got, text)
	}
}
