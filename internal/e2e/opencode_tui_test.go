package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// openCodeVersion is the version of OpenCode's terminal interface the
// test drives; .ci/run installs it and names its binary in
// CODELOOP_E2E_OPENCODE.
const openCodeVersion = "1.18.33"

// openCodeBinary returns the path of OpenCode's binary: the one
// CODELOOP_E2E_OPENCODE names, which must then exist (CI sets it), else the
// one .ci/run installs in its cache, else it skips the test.
func openCodeBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("CODELOOP_E2E_OPENCODE"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("CODELOOP_E2E_OPENCODE names %s: %v", bin, err)
		}
		return bin
	}
	cpu := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	cache, err := os.UserCacheDir()
	if err == nil && cpu != "" {
		bin := filepath.Join(cache, "codeloop-ci", "opencode-"+openCodeVersion, "node_modules", "opencode-linux-"+cpu, "bin", "opencode")
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	t.Skipf("OpenCode's terminal interface is not installed: run .ci/run, or npm install opencode-ai@%s and set CODELOOP_E2E_OPENCODE to its platform binary (node_modules/opencode-linux-%s/bin/opencode)", openCodeVersion, cpu)
	return ""
}

// requestLog is a reverse proxy in front of codeloop serve that records
// every request a client makes and what answered it.
type requestLog struct {
	mu    sync.Mutex
	lines []string
}

// proxy returns the URL of a logging reverse proxy to target.
func (l *requestLog) proxy(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			if r.In.Body != nil && r.In.Method != http.MethodGet {
				body, _ := io.ReadAll(r.In.Body)
				r.Out.Body = io.NopCloser(bytes.NewReader(body))
				l.add(fmt.Sprintf("%s %s body %s", r.In.Method, r.In.URL.Path, bytes.TrimSpace(body)))
			}
		},
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			req := resp.Request
			if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				l.add(fmt.Sprintf("%s %s -> %d (event stream)", req.Method, req.URL.RequestURI(), resp.StatusCode))
				resp.Body = &teeLog{ReadCloser: resp.Body, log: l, prefix: "  event "}
				return nil
			}
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			if len(body) > 600 {
				body = append(body[:600:600], "…"...)
			}
			l.add(fmt.Sprintf("%s %s -> %d %s %v", req.Method, req.URL.RequestURI(), resp.StatusCode, bytes.TrimSpace(body), err))
			return nil
		},
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("requests of OpenCode's interface:\n%s", l.String())
		}
	})
	return srv.URL
}

func (l *requestLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *requestLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// teeLog logs the events of a stream as they are read.
type teeLog struct {
	io.ReadCloser
	log    *requestLog
	prefix string
}

func (r *teeLog) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	for _, line := range strings.Split(string(p[:n]), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 300 {
				line = line[:300] + "…"
			}
			r.log.add(r.prefix + line)
		}
	}
	return n, err
}

// TestOpenCodeTUI drives OpenCode's own terminal interface, attached to
// codeloop serve: the configured model picked in its model picker, a
// prompt typed and its answer shown, a bash command approved in its
// permission dialog while the answer streams (so the dialog and the text
// come from the event stream, the prompt's request still waiting) and run,
// an edit's diff shown, and a file name completed after @. Every request
// it makes is logged, with its answer, when the test fails.
func TestOpenCodeTUI(t *testing.T) {
	bin := openCodeBinary(t)
	tm := newTmux(t)
	script := "step\ntext Hello from the fake model.\nfinish stop input=100 output=10\n" +
		"step\ntext Running the command now.\ncall call_1 bash {\"command\":\"echo approved > approved.txt\"}\nfinish tool-calls\nstep\ntext The command ran.\nfinish stop\n" +
		"step\ncall call_2 edit {\"filePath\":\"notes.md\",\"oldString\":\"some notes\",\"newString\":\"better notes\"}\nfinish tool-calls\nstep\ntext Edited the notes.\nfinish stop\n"
	p := newProject(t, script, map[string]string{
		"codeloop.json": `{"permission": {"bash": "ask"}}`,
		"notes.md":      "some notes\n",
	})
	p.trust()
	s := p.serve("--port", "0")
	var log requestLog
	proxied := log.proxy(t, s.url)

	var line strings.Builder
	line.WriteString("env -i")
	for _, kv := range append(p.env(), "TERM=xterm-256color", "LANG=C.UTF-8", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1") {
		line.WriteString(" " + shellQuote(kv))
	}
	for _, a := range []string{bin, "attach", proxied, "--password=" + s.token, "--dir", p.dir} {
		line.WriteString(" " + shellQuote(a))
	}
	tm.start("oc", p.dir, line.String(), 120, 40)
	defer func() {
		if t.Failed() {
			t.Logf("screen:\n%s", tm.screen("oc"))
		}
	}()
	// The footer names the configured model once the providers are read.
	tm.waitFor("oc", "Build · Fake")

	// The model picker marks the configured model; picking another model
	// and then the configured one again selects it.
	tm.typeText("oc", "/models")
	tm.waitFor("oc", "Switch model")
	tm.keys("oc", "Enter")
	tm.waitFor("oc", "Select model", "● Fake", "small")
	tm.typeText("oc", "small")
	tm.keys("oc", "Enter")
	tm.waitFor("oc", "Build · small")
	tm.typeText("oc", "/models")
	tm.waitFor("oc", "Switch model")
	tm.keys("oc", "Enter")
	tm.waitFor("oc", "Select model")
	tm.typeText("oc", "Fake")
	tm.keys("oc", "Enter")
	tm.waitFor("oc", "Build · Fake")

	// A prompt, answered by the picked model.
	tm.typeText("oc", "say hello")
	tm.keys("oc", "Enter")
	tm.waitFor("oc", "Hello from the fake model.")
	if !strings.Contains(log.String(), `"providerID":"fake","modelID":"model"`) {
		t.Errorf("the prompt did not name the picked model fake/model")
	}

	// The text streamed before the bash call and the permission dialog
	// come from the event stream: the prompt's request waits until the
	// turn ends.
	tm.typeText("oc", "run the command")
	tm.keys("oc", "Enter")
	tm.waitFor("oc", "Running the command now.", "Permission required", "echo approved > approved.txt", "Allow once")
	if _, err := os.Stat(filepath.Join(p.dir, "approved.txt")); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	tm.keys("oc", "Enter") // Allow once
	tm.waitFor("oc", "The command ran.")
	if got := p.read("approved.txt"); got != "approved\n" {
		t.Errorf("approved.txt %q after the approval", got)
	}
	if !strings.Contains(log.String(), `"type":"session.idle"`) {
		t.Errorf("no session.idle event reached the interface")
	}

	// An edit shows its diff.
	tm.typeText("oc", "edit the notes")
	tm.keys("oc", "Enter")
	tm.waitFor("oc", "Edit notes.md", "- some notes", "+ better notes", "Edited the notes.")
	if got := p.read("notes.md"); got != "better notes\n" {
		t.Errorf("notes.md %q after the edit", got)
	}

	// @ completes a file name, through the server's file search.
	if !serves(t, s, "/api/fs/find?query=notes") {
		t.Fatal("the server does not answer GET /api/fs/find, which OpenCode's interface searches files with")
	}
	tm.typeText("oc", "look at @note")
	tm.waitFor("oc", "┃ notes.md ") // the completion list (the transcript has "Edit notes.md")
	tm.keys("oc", "Enter")
	tm.waitFor("oc", "look at @notes.md")
}

// serves reports whether codeloop serve answers GET path with a success.
func serves(t *testing.T, s *serveProc, path string) bool {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// TestOpenCodeRunAttach: OpenCode's run --attach prints the answer of a
// codeloop server, and the permission rules it sends with its new session
// are kept with the session.
func TestOpenCodeRunAttach(t *testing.T) {
	bin := openCodeBinary(t)
	p := newProject(t, "step\ntext Hello from the fake model.\nfinish stop input=100 output=10\n", nil)
	p.trust()
	s := p.serve("--port", "0")
	var log requestLog
	proxied := log.proxy(t, s.url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--attach", proxied, "--password="+s.token, "--dir", p.dir, "say hello")
	cmd.Dir = p.dir
	cmd.Env = append(p.env(), "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("opencode run --attach: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Hello from the fake model.") {
		t.Errorf("output %q lacks the answer", out)
	}
	var sent struct {
		Permission []client.PermissionRule `json:"permission"`
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if body, ok := strings.CutPrefix(l, "POST /session body "); ok {
			if err := json.Unmarshal([]byte(body), &sent); err != nil {
				t.Fatalf("POST /session body %s: %v", body, err)
			}
		}
	}
	sessions, err := s.client(t).ListSessions(ctx, client.ListSessionsOptions{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %v %v", sessions, err)
	}
	if len(sent.Permission) == 0 {
		t.Errorf("opencode run sent no permission rules with its session:\n%s", log.String())
	}
	if !slices.Equal(sessions[0].Permission, sent.Permission) {
		t.Errorf("the session's rules %v, sent %v", sessions[0].Permission, sent.Permission)
	}
}
