package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/remote"
)

// serveProc is a codeloop serve running on a project.
type serveProc struct {
	cmd    *exec.Cmd
	url    string
	token  string
	state  string // the state file
	stderr *strings.Builder
	exited chan struct{}
}

// serve starts codeloop serve with args and waits until it listens.
func (p *project) serve(args ...string) *serveProc {
	p.t.Helper()
	return p.serveEnv(nil, args...)
}

// serveEnv is serve with env added to the server's environment.
func (p *project) serveEnv(env []string, args ...string) *serveProc {
	p.t.Helper()
	cmd := p.command(context.Background(), append([]string{"serve"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	s := &serveProc{cmd: cmd, stderr: &strings.Builder{}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	p.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if path, ok := strings.CutPrefix(lines.Text(), "its token is in "); ok {
			s.state = path
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if s.state == "" {
		<-s.exited
		p.t.Fatalf("codeloop serve did not start: %s", s.stderr)
	}
	var st struct{ URL, Token string }
	data, err := os.ReadFile(s.state)
	if err != nil || json.Unmarshal(data, &st) != nil {
		p.t.Fatalf("state file %s: %v %s", s.state, err, data)
	}
	s.url, s.token = st.URL, st.Token
	return s
}

// stop sends SIGTERM and returns the exit status.
func (s *serveProc) stop(t *testing.T) int {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("codeloop serve did not stop on SIGTERM")
	}
	return s.cmd.ProcessState.ExitCode()
}

func (s *serveProc) client(t *testing.T) *remote.Client {
	t.Helper()
	c, err := remote.New(s.url, remote.Options{Token: s.token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestServeSecurity: the real server refuses foreign hosts and origins,
// missing and wrong tokens (401), credentials in the URL (400, never
// logged), oversized and malformed bodies, on the routes and the event
// stream, and keeps its state file private.
func TestServeSecurity(t *testing.T) {
	p := newProject(t, "", nil)
	s := p.serve("--port", "0")
	if m := mode(t, s.state); m != 0o600 {
		t.Errorf("state file mode %v, want 0600", m)
	}
	if m := mode(t, filepath.Dir(s.state)); m != 0o700 {
		t.Errorf("state directory mode %v, want 0700", m)
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	send := func(method, path, body string, change func(*http.Request)) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+s.token)
		change(req)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			line, _ := bufio.NewReader(resp.Body).ReadString('\n')
			return resp.StatusCode, line
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	routes := []struct{ method, path, body string }{
		{"GET", "/session", ""},
		{"POST", "/session", `{"title":"t"}`},
		{"GET", "/config", ""},
		{"GET", "/event", ""},
		{"GET", "/doc", ""},
	}
	for _, r := range routes {
		for _, tc := range []struct {
			name   string
			change func(*http.Request)
			want   int
		}{
			{"wrong host", func(q *http.Request) { q.Host = "rebound.example" + s.url[strings.LastIndex(s.url, ":"):] }, 403},
			{"foreign origin", func(q *http.Request) { q.Header.Set("Origin", "https://evil.example") }, 403},
			{"no token", func(q *http.Request) { q.Header.Del("Authorization") }, 401},
			{"wrong token", func(q *http.Request) { q.Header.Set("Authorization", "Bearer x"+s.token) }, 401},
			{"token in the query", func(q *http.Request) { q.Header.Del("Authorization"); q.URL.RawQuery = "token=" + s.token }, 400},
			{"api key in the query", func(q *http.Request) { q.URL.RawQuery = "API_KEY=" + s.token }, 400},
			{"password in the query", func(q *http.Request) { q.URL.RawQuery = "directory=x&Password=" + s.token }, 400},
			{"valid", func(*http.Request) {}, 200},
			{"valid basic", func(q *http.Request) { q.SetBasicAuth("opencode", s.token) }, 200},
		} {
			if got, text := send(r.method, r.path, r.body, tc.change); got != tc.want {
				t.Errorf("%s %s, %s: status %d, want %d: %s", r.method, r.path, tc.name, got, tc.want, text)
			}
		}
	}
	if got, text := send("GET", "/config", "", func(*http.Request) {}); strings.Contains(text, `"apiKey":"test"`) {
		t.Errorf("GET /config (%d) shows the provider's key: %s", got, text)
	}
	big := `{"title":"` + strings.Repeat("x", 17<<20) + `"}`
	if got, text := send("POST", "/session", big, func(*http.Request) {}); got != 413 {
		t.Errorf("an oversized body: status %d: %.200s", got, text)
	}
	got, text := send("POST", "/session", `{"title":42}`, func(*http.Request) {})
	if got != 400 || !strings.Contains(text, `"field":"title"`) {
		t.Errorf("a malformed body: status %d: %s", got, text)
	}
	if code := s.stop(t); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0: %s", code, s.stderr)
	}
	if _, err := os.Stat(s.state); !os.IsNotExist(err) {
		t.Errorf("the state file outlived the server: %v", err)
	}
	if strings.Contains(s.stderr.String(), s.token) {
		t.Errorf("the server's output shows its token: %s", s.stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(p.home, ".local", "share", "*", "log", "*"))
	refusals := 0
	for _, f := range logs {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), s.token) {
			t.Errorf("the log %s holds the token", f)
		}
		refusals += strings.Count(string(data), "looks like a credential")
	}
	if refusals == 0 {
		t.Errorf("no refusal of a credential in the URL was logged in %v", logs)
	}
}

// TestServeRefusesPublicAddress: a non-loopback address needs
// --insecure-listen, and the refusal says why.
func TestServeRefusesPublicAddress(t *testing.T) {
	p := newProject(t, "", nil)
	_, stderr, code := p.run("serve", "--hostname", "0.0.0.0", "--port", "0")
	if code != 2 || !strings.Contains(stderr, "not a loopback address") || !strings.Contains(stderr, "--insecure-listen") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestServeSocket: on a Unix socket the socket is the owner's alone and
// the Go client works through it.
func TestServeSocket(t *testing.T) {
	p := newProject(t, "", nil)
	dir, err := os.MkdirTemp("", "cl-e2e")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "run", "codeloop.sock")
	s := p.serve("--socket", sock)
	if s.url != "unix://"+sock {
		t.Errorf("url %q", s.url)
	}
	st, err := os.Stat(sock)
	if err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("socket %v, %v: want a socket with mode 0600", st.Mode(), err)
	}
	if m := mode(t, filepath.Dir(sock)); m != 0o700 {
		t.Errorf("socket directory mode %v, want 0700", m)
	}
	c := s.client(t)
	ctx := context.Background()
	sess, err := c.CreateSession(ctx, client.CreateSessionInput{Title: "over a socket"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.ListSessions(ctx, client.ListSessionsOptions{})
	if err != nil || len(list) != 1 || list[0].ID != sess.ID {
		t.Errorf("sessions %v, %v", list, err)
	}
	if code := s.stop(t); code != 0 {
		t.Errorf("exit status %d: %s", code, s.stderr)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket outlived the server: %v", err)
	}
}

// TestServeStopSavesRunningSessions: SIGTERM while a session streams
// interrupts it and keeps what streamed; two clients see the same
// session live.
func TestServeStopSavesRunningSessions(t *testing.T) {
	p := newProject(t, "step\ntext Partial answer\nhang\n", nil)
	s := p.serve("--port", "0")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := s.client(t), s.client(t)
	sess, err := a.CreateSession(ctx, client.CreateSessionInput{})
	if err != nil {
		t.Fatal(err)
	}
	evA, err := a.Subscribe(ctx, client.EventFilter{SessionID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	evB, err := b.Subscribe(ctx, client.EventFilter{SessionID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("go")}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.model.Hung():
	case <-ctx.Done():
		t.Fatal("the model was never reached")
	}
	for name, ev := range map[string]client.Events{"first": evA, "second": evB} {
		var text string
		for !strings.Contains(text, "answer") {
			e, err := ev.Next(ctx)
			if err != nil {
				t.Fatalf("the %s client: %v", name, err)
			}
			if d, ok := e.(client.PartDeltaEvent); ok {
				text += d.Delta
			}
		}
	}
	if code := s.stop(t); code != 0 {
		t.Fatalf("exit status %d after SIGTERM: %s", code, s.stderr)
	}

	again := p.serve("--port", "0")
	msgs, err := again.client(t).Messages(ctx, sess.ID, client.MessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 {
		t.Fatalf("%d messages after the stop, want 2", len(msgs))
	}
	answer := msgs[1]
	if answer.Info.Error == nil || answer.Info.Error.Name != "MessageAbortedError" {
		t.Errorf("the answer's error %+v, want MessageAbortedError", answer.Info.Error)
	}
	if !slices.ContainsFunc(answer.Parts, func(p client.Part) bool { return p.Text == "Partial answer" }) {
		t.Errorf("what streamed was not saved: %+v", answer.Parts)
	}
}
