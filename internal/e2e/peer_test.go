package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeOtherUser: another user of the machine who learns a login link
// (a browser's command line shows it to every user) or the token (as
// --token does) is refused on the real server, and the link still works
// for its own user afterwards.
func TestServeOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	for _, tool := range []string{"setpriv", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp")
	}
	p := newProject(t, "", nil)
	w := p.web()
	asNobody := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups",
			"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5"}, args...)...)
		// An event stream answered 200 ends at --max-time, with an error.
		out, err := cmd.Output()
		if len(out) != 3 {
			t.Fatalf("curl as another user: %v: %s", err, out)
		}
		return string(out)
	}
	for _, tc := range []struct{ name, got string }{
		{"the login link", asNobody(w.login)},
		{"the token", asNobody("-H", "Authorization: Bearer "+w.token, w.url+"/session")},
		{"the token on the event stream", asNobody("-H", "Authorization: Bearer "+w.token, w.url+"/event")},
	} {
		if tc.got != "403" {
			t.Errorf("another user with %s: status %s, want 403", tc.name, tc.got)
		}
	}
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(w.login)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Set-Cookie"), "codeloop_web=") {
		t.Errorf("the user's own login after the refusal: %d, Set-Cookie %q; want 303 and the cookie", resp.StatusCode, resp.Header.Get("Set-Cookie"))
	}
	req, _ := http.NewRequest("GET", w.url+"/session", nil)
	req.Header.Set("Authorization", "Bearer "+w.token)
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the user's own request with the token: %d, want 200", resp.StatusCode)
	}
}

// TestServeSocketRefusesConfinedCommands: a command the sandbox confines
// can read the server's state file, but the real server on a Unix socket
// refuses its requests, so it cannot have the server run a command
// outside the sandbox; the server's own user is served as before.
func TestServeSocketRefusesConfinedCommands(t *testing.T) {
	needLandlock(t)
	for _, tool := range []string{"curl", "base64"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	dir, err := os.MkdirTemp("", "cl-e2e")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "codeloop.sock")
	escaped, ours := filepath.Join(dir, "escaped"), filepath.Join(dir, "ours")
	// What the model's command runs, encoded so that no path in it needs
	// an approval: take the server's token from a file of the project
	// (codeloop's state directory is hidden from confined commands, but
	// a token can leak another way), then ask the server for a shell
	// command; its answer is kept in the project.
	script := `T=$(cat token.txt); SOCK=` + sock + `
curl -s --unix-socket "$SOCK" -H "Authorization: Bearer $T" -X POST http://localhost/session -d '{}' > answer.json
S=$(jq -r .id answer.json)
curl -s --unix-socket "$SOCK" -H "Authorization: Bearer $T" -X POST "http://localhost/session/$S/shell" -d '{"command":"touch ` + escaped + `"}' >> answer.json
`
	p := newProject(t, `
step
call call_1 bash {"command":"echo `+base64.StdEncoding.EncodeToString([]byte(script))+` | base64 -d | sh","description":"Reach the server"}
finish tool-calls
step
text Done.
finish stop
`, nil)
	p.writeConfig(`{"sandbox": {"mode": "workspace-write", "auto_allow": true}}`)
	s := p.serve("--socket", sock)
	if err := os.WriteFile(filepath.Join(p.dir, "token.txt"), []byte(s.token), 0o600); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
	post := func(path, body string) string {
		t.Helper()
		req, err := http.NewRequest("POST", "http://localhost"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+s.token)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	var sess struct{ ID string }
	if err := json.Unmarshal([]byte(post("/session", `{}`)), &sess); err != nil {
		t.Fatal(err)
	}
	post("/session/"+sess.ID+"/message", `{"parts":[{"type":"text","text":"reach the server"}]}`)
	answer, err := os.ReadFile(filepath.Join(p.dir, "answer.json"))
	if err != nil {
		t.Fatalf("the confined command did not run: %v", err)
	}
	if !strings.Contains(string(answer), "ForbiddenError") {
		t.Errorf("the confined command's requests were not refused: %s", answer)
	}
	if _, err := os.Stat(escaped); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the confined command had the server run a command outside the sandbox: %v", err)
	}
	post("/session/"+sess.ID+"/shell", `{"command":"touch `+ours+`"}`)
	if _, err := os.Stat(ours); err != nil {
		t.Errorf("the server's own user could not run a shell command: %v", err)
	}
}
