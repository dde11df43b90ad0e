package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/client/local"
)

const testToken = "0123456789abcdef-test"

// rig is a server over a real engine on a temporary project, served on a
// loopback port.
type rig struct {
	t    testing.TB
	c    *local.Client
	srv  *Server
	http *httptest.Server
	host string // the Host the server accepts
}

// okScript answers every request with a short text.
func okScript(n int) string {
	return strings.Repeat("step\ntext ok\nfinish stop\n", n)
}

func newRig(t testing.TB, script string, opts Options) *rig {
	t.Helper()
	files := map[string]string{".opencode/command/greet.md": "---\ndescription: Greets\n---\nSay hello to $ARGUMENTS\n"}
	p := clienttest.NewProject(t, script, "", files)
	a, err := app.Open(context.Background(), app.Options{Dir: p.Dir, Dirs: p.Dirs, Getenv: p.Getenv, NoMCP: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	lc := local.New(a)
	hs := httptest.NewUnstartedServer(nil)
	host := hs.Listener.Addr().String()
	if opts.Token == "" {
		opts.Token = testToken
	}
	if opts.Hosts == nil {
		opts.Hosts = []string{host}
	}
	opts.Version = "test"
	srv, err := New(lc, opts)
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
	return &rig{t: t, c: lc, srv: srv, http: hs, host: host}
}

// request builds an authorised request to path.
func (r *rig) request(method, path, body string) *http.Request {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.http.URL+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// do sends req and returns the status and, for JSON, the body; an event
// stream is read up to its first event and dropped.
func (r *rig) do(req *http.Request) (int, string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clienttest.Timeout)
	defer cancel()
	resp, err := r.http.Client().Do(req.WithContext(ctx))
	if err != nil {
		r.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		return resp.StatusCode, line
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// fill puts ids in a route's path.
func fill(path string, ids map[string]string) string {
	for k, v := range ids {
		path = strings.ReplaceAll(path, "{"+k+"}", url.PathEscape(v))
	}
	return path
}

// validBodies are requests every route accepts on a fresh session.
var validBodies = map[string]string{
	"session.create":        `{"title":"made"}`,
	"session.update":        `{"title":"renamed"}`,
	"session.fork":          `{}`,
	"session.summarize":     `{}`,
	"session.revert":        `{"messageID":"{messageID}"}`,
	"session.prompt":        `{"parts":[{"type":"text","text":"hello"}]}`,
	"session.prompt_async":  `{"parts":[{"type":"text","text":"hello"}]}`,
	"session.command":       `{"command":"greet","arguments":"Ada"}`,
	"session.command_async": `{"command":"greet","arguments":"Ada"}`,
	"session.shell":         `{"command":"echo hi"}`,
	"permission.reply":      `{"reply":"once"}`,
	"permission.respond":    `{"response":"once"}`,
	"question.reply":        `{"answers":[["x"]]}`,
}

// validQueries are the query strings of routes that need one.
var validQueries = map[string]string{
	"file.read": "?path=.opencode/command/greet.md",
	"find.text": "?pattern=hello",
}

// validStatus says what a valid, authorised request answers when it is
// not 200 or 204: a request that is no longer pending is not found, and
// revert needs file snapshots.
var validStatus = map[string][]int{
	"permission.reply":   {404},
	"permission.respond": {404},
	"question.reply":     {404},
	"question.reject":    {404},
	"session.revert":     {200, 501},
	"session.unrevert":   {200, 501},
}

// TestSecurity: on every route, the event stream included, a foreign Host
// or Origin is refused with 403, a missing or wrong token with 401, a
// URL-borne one with 400, and a valid request passes.
func TestSecurity(t *testing.T) {
	r := newRig(t, okScript(40), Options{})
	ctx := context.Background()
	for _, op := range r.srv.ops {
		t.Run(op.ID, func(t *testing.T) {
			sess, err := r.c.CreateSession(ctx, client.CreateSessionInput{})
			if err != nil {
				t.Fatal(err)
			}
			msg, err := r.c.Prompt(ctx, sess.ID, client.PromptInput{NoReply: true, Parts: []client.PartInput{client.TextInput("first")}})
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]string{"sessionID": sess.ID, "messageID": msg, "requestID": "per_none", "permissionID": "per_none"}
			path := fill(op.Path, ids) + validQueries[op.ID]
			body := strings.ReplaceAll(validBodies[op.ID], "{messageID}", msg)
			_, port, _ := net.SplitHostPort(r.host)
			cases := []struct {
				name   string
				change func(*http.Request)
				want   int
			}{
				{"wrong host", func(q *http.Request) { q.Host = "evil.example:80" }, 403},
				{"rebound name", func(q *http.Request) { q.Host = "attacker.example:" + port }, 403},
				{"foreign origin", func(q *http.Request) { q.Header.Set("Origin", "https://evil.example") }, 403},
				{"no token", func(q *http.Request) { q.Header.Del("Authorization") }, 401},
				{"wrong token", func(q *http.Request) { q.Header.Set("Authorization", "Bearer "+testToken+"x") }, 401},
				{"wrong basic password", func(q *http.Request) { q.SetBasicAuth("opencode", "nope") }, 401},
				{"token in the query", func(q *http.Request) { q.URL.RawQuery = "auth_token=" + testToken }, 400},
				{"valid", func(*http.Request) {}, 0},
			}
			for _, tc := range cases {
				req := r.request(op.Method, path, body)
				tc.change(req)
				got, text := r.do(req)
				if tc.want != 0 {
					if got != tc.want {
						t.Errorf("%s: status %d, want %d: %s", tc.name, got, tc.want, text)
					}
					continue
				}
				want := validStatus[op.ID]
				if op.Unsupported {
					want = []int{501}
				}
				if want == nil {
					want = []int{200, 204}
				}
				if !containsInt(want, got) {
					t.Errorf("%s: status %d, want one of %v: %s", tc.name, got, want, text)
				}
			}
		})
	}
}

// TestBasicAuth: HTTP Basic with the token as password is accepted, as
// OpenCode's SDK sends it, on the routes and on the event stream.
func TestBasicAuth(t *testing.T) {
	r := newRig(t, "", Options{})
	for _, path := range []string{"/session", "/event", "/doc"} {
		req := r.request("GET", path, "")
		req.SetBasicAuth("opencode", testToken)
		if got, text := r.do(req); got != 200 {
			t.Errorf("%s: status %d: %s", path, got, text)
		}
	}
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// TestCORS: a configured origin gets CORS headers and its preflight is
// answered; without configuration no CORS header is ever sent.
func TestCORS(t *testing.T) {
	const origin = "https://app.example.com"
	r := newRig(t, "", Options{Origins: []string{origin + "/"}})
	pre := r.request(http.MethodOptions, "/session", "")
	pre.Header.Del("Authorization")
	pre.Header.Set("Origin", origin)
	pre.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := r.http.Client().Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != origin || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	get := r.request(http.MethodGet, "/session", "")
	get.Header.Set("Origin", origin)
	resp, err = r.http.Client().Do(get)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != origin {
		t.Errorf("GET from the allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	noOrigin := r.request(http.MethodGet, "/session", "")
	resp, err = r.http.Client().Do(noOrigin)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if v := resp.Header.Get("Access-Control-Allow-Origin"); v != "" {
		t.Errorf("a request without Origin got Access-Control-Allow-Origin %q", v)
	}
}

// TestNoToken: a server without a token is refused.
func TestNoToken(t *testing.T) {
	if _, err := New(nil, Options{}); err == nil {
		t.Error("a server without a token was made")
	}
}

// TestBadRequests: malformed bodies and parameters are answered 400 with
// a message that names the member, oversized bodies 413.
func TestBadRequests(t *testing.T) {
	r := newRig(t, "", Options{MaxBody: 1024})
	sess, err := r.c.CreateSession(context.Background(), client.CreateSessionInput{})
	if err != nil {
		t.Fatal(err)
	}
	prompt := "/session/" + sess.ID + "/prompt_async"
	big := `{"parts":[{"type":"text","text":"` + strings.Repeat("x", 2000) + `"}]}`
	for _, tc := range []struct {
		name, method, path, body string
		want                     int
		field, says              string
	}{
		{"parts not an array", "POST", prompt, `{"parts":"hello"}`, 400, "parts", "want an array"},
		{"text not a string", "POST", prompt, `{"parts":[{"type":"text","text":5}]}`, 400, "parts.text", "want a string"},
		{"truncated JSON", "POST", prompt, `{"parts":[`, 400, "", "not valid JSON"},
		{"not JSON", "POST", "/session", `title=x`, 400, "", "not valid JSON"},
		{"title not a string", "POST", "/session", `{"title":["a"]}`, 400, "title", "want a string"},
		{"limit not a number", "GET", "/session?limit=ten", "", 400, "limit", "limit"},
		{"roots not a boolean", "GET", "/session?roots=maybe", "", 400, "roots", "roots"},
		{"empty prompt", "POST", prompt, `{"parts":[]}`, 400, "", "empty"},
		{"oversized", "POST", prompt, big, 413, "", "limit"},
		{"unknown route", "GET", "/nowhere", "", 404, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, text := r.do(r.request(tc.method, tc.path, tc.body))
			if got != tc.want {
				t.Fatalf("status %d, want %d: %s", got, tc.want, text)
			}
			if tc.want == 404 {
				return
			}
			var e errorBody
			if err := json.Unmarshal([]byte(text), &e); err != nil {
				t.Fatalf("error body %q: %v", text, err)
			}
			if e.Data.Field != tc.field || !strings.Contains(e.Data.Message, tc.says) {
				t.Errorf("error %+v, want field %q and a message with %q", e, tc.field, tc.says)
			}
		})
	}
	// A body without a length is cut at the limit too.
	req := r.request("POST", prompt, "")
	req.Body = io.NopCloser(strings.NewReader(big))
	req.ContentLength = -1
	if got, text := r.do(req); got != 413 {
		t.Errorf("a chunked oversized body: status %d: %s", got, text)
	}
}

// TestEventStream: the stream starts with server.connected, carries the
// engine's events in OpenCode's shape, honours its filter and beats.
func TestEventStream(t *testing.T) {
	r := newRig(t, "", Options{Heartbeat: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), clienttest.Timeout)
	defer cancel()
	a, _ := r.c.CreateSession(ctx, client.CreateSessionInput{})
	b, _ := r.c.CreateSession(ctx, client.CreateSessionInput{})
	req := r.request("GET", "/event?sessionID="+a.ID+"&type="+client.TypeSessionUpdated, "").WithContext(ctx)
	resp, err := r.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	rd := bufio.NewReader(resp.Body)
	next := func() map[string]any {
		t.Helper()
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var v map[string]any
				if err := json.Unmarshal([]byte(data), &v); err != nil {
					t.Fatalf("event %q: %v", data, err)
				}
				return v
			}
		}
	}
	if e := next(); e["type"] != TypeServerConnected {
		t.Fatalf("first event %v", e)
	}
	for _, s := range []client.Session{b, a} {
		title := "renamed " + s.ID
		if _, err := r.c.UpdateSession(ctx, s.ID, client.UpdateSessionInput{Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	beats := 0
	for {
		e := next()
		if e["type"] == TypeServerHeartbeat {
			beats++
			continue
		}
		props, _ := e["properties"].(map[string]any)
		info, _ := props["info"].(map[string]any)
		if e["type"] != client.TypeSessionUpdated || info["id"] != a.ID || info["title"] != "renamed "+a.ID {
			t.Fatalf("event %v, want a's update only", e)
		}
		break
	}
	for beats < 2 {
		if e := next(); e["type"] != TypeServerHeartbeat {
			t.Fatalf("event %v while idle, want heartbeats", e)
		}
		beats++
	}
}

// TestPromptSync: POST /session/{id}/message waits for the answer and
// returns it.
func TestPromptSync(t *testing.T) {
	r := newRig(t, "step\ntext The answer.\nfinish stop\n", Options{})
	sess, _ := r.c.CreateSession(context.Background(), client.CreateSessionInput{})
	got, text := r.do(r.request("POST", "/session/"+sess.ID+"/message", `{"parts":[{"type":"text","text":"question"}]}`))
	if got != 200 {
		t.Fatalf("status %d: %s", got, text)
	}
	var m client.Message
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	if m.Info.Role != client.RoleAssistant || m.Info.Finish != "stop" || len(m.Parts) == 0 {
		t.Fatalf("answer %s", text)
	}
	found := false
	for _, p := range m.Parts {
		found = found || p.Text == "The answer."
	}
	if !found {
		t.Errorf("the answer's parts lack its text: %s", text)
	}
}
