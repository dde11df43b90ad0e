package e2e

import (
	"net/http"
	"os"
	"os/exec"
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
