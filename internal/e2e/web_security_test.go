package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// TestWebSecurity: without the cookie or the token every API route and
// the event stream answer 401, under / and under /web/api/; a wrong or
// spent login code is refused; the cookie is HttpOnly, SameSite=Strict
// and scoped to /web/, and authenticates only requests from the page's
// own origin; the page's headers forbid inline script and framing.
func TestWebSecurity(t *testing.T) {
	p := newProject(t, "", nil)
	w := p.web()
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path string, header map[string]string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, w.url+path, strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			return resp, "(an event stream)"
		}
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	for _, rt := range wire.Routes() {
		path := pathParam.ReplaceAllString(rt.Pattern, "x1")
		for _, prefix := range []string{"", "/web/api"} {
			if resp, body := send(rt.Method, prefix+path, nil); resp.StatusCode != 401 {
				t.Errorf("%s %s without cookie or token: %d, want 401: %.200s", rt.Method, prefix+path, resp.StatusCode, body)
			}
		}
	}

	code := strings.TrimPrefix(w.login, w.url+"/web/login?code=")
	// The right code with its first character changed.
	wrong := "x" + code[1:]
	if code[0] == 'x' {
		wrong = "y" + code[1:]
	}
	for _, tc := range []struct{ name, query string }{
		{"no code", ""}, {"an empty code", "?code="}, {"a wrong code", "?code=" + wrong},
	} {
		resp, _ := send("GET", "/web/login"+tc.query, nil)
		if resp.StatusCode != 403 || len(resp.Cookies()) > 0 {
			t.Errorf("login with %s: %d, cookies %v; want 403 and none", tc.name, resp.StatusCode, resp.Cookies())
		}
	}
	resp, _ := send("GET", "/web/login?code="+code, nil)
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/web/" {
		t.Fatalf("login: %d to %q, want 303 to /web/", resp.StatusCode, resp.Header.Get("Location"))
	}
	setCookie := resp.Header.Get("Set-Cookie")
	for _, attr := range []string{"codeloop_web=", "Path=/web/", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(setCookie, attr) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, attr)
		}
	}
	if strings.Contains(setCookie, code) {
		t.Error("the cookie holds the login code")
	}
	cookie := strings.SplitN(setCookie, ";", 2)[0]
	if resp, _ := send("GET", "/web/login?code="+code, nil); resp.StatusCode != 403 || len(resp.Cookies()) > 0 {
		t.Errorf("a spent code: %d, cookies %v; want 403 and none", resp.StatusCode, resp.Cookies())
	}

	own := w.url
	otherPort := "http://127.0.0.1:1" + w.url[strings.LastIndex(w.url, ":")+1:]
	for _, tc := range []struct {
		name, method, path string
		header             map[string]string
		want               int
	}{
		{"a read", "GET", "/web/api/session", map[string]string{"Cookie": cookie}, 200},
		{"the event stream", "GET", "/web/api/event", map[string]string{"Cookie": cookie}, 200},
		{"a read from the page", "GET", "/web/api/session", map[string]string{"Cookie": cookie, "Sec-Fetch-Site": "same-origin"}, 200},
		{"a change from the page", "POST", "/web/api/session", map[string]string{"Cookie": cookie, "Origin": own}, 200},
		{"a change without Origin", "POST", "/web/api/session", map[string]string{"Cookie": cookie}, 401},
		{"a change from another site", "POST", "/web/api/session", map[string]string{"Cookie": cookie, "Origin": "https://evil.example"}, 403},
		{"a change from another port", "POST", "/web/api/session", map[string]string{"Cookie": cookie, "Origin": otherPort}, 403},
		{"a read from another port", "GET", "/web/api/session", map[string]string{"Cookie": cookie, "Sec-Fetch-Site": "same-site"}, 401},
		{"a read from another site", "GET", "/web/api/session", map[string]string{"Cookie": cookie, "Sec-Fetch-Site": "cross-site"}, 401},
		{"a cookie with a wrong token", "GET", "/web/api/session", map[string]string{"Cookie": cookie, "Authorization": "Bearer wrong-token-xxxxxxxx"}, 401},
		{"a made-up cookie", "GET", "/web/api/session", map[string]string{"Cookie": "codeloop_web=" + code}, 401},
		{"the token", "GET", "/web/api/session", map[string]string{"Authorization": "Bearer " + w.token}, 200},
		{"a logout from another site", "POST", "/web/logout", map[string]string{"Cookie": cookie, "Origin": "https://evil.example"}, 403},
	} {
		if resp, body := send(tc.method, tc.path, tc.header); resp.StatusCode != tc.want {
			t.Errorf("%s (%s %s): %d, want %d: %.200s", tc.name, tc.method, tc.path, resp.StatusCode, tc.want, body)
		}
	}

	resp, page := send("GET", "/web/", nil)
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %s", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
		t.Errorf("Content-Security-Policy %q allows inline code or another origin", csp)
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", resp.Header.Get("X-Content-Type-Options"))
	}
	if regexp.MustCompile(`<script(?:\s+type="module")?>`).MatchString(page) || regexp.MustCompile(`(?:src|href)="(?:https?:)?//`).MatchString(page) {
		t.Errorf("the page has inline script or loads from another origin:\n%s", page)
	}
	if strings.Contains(page, "ses_") {
		t.Error("the page itself holds session data")
	}

	// --hostname beyond loopback still needs --insecure-listen.
	if _, stderr, code := p.run("web", "--hostname", "0.0.0.0", "--port", "0", "--no-open"); code != 2 || !strings.Contains(stderr, "--insecure-listen") {
		t.Errorf("web --hostname 0.0.0.0: exit %d: %s", code, stderr)
	}
}

// TestWebCrossOrigin: in a logged-in browser, the cookie is not sent
// outside /web/, and a page of another origin on the same host can
// neither read the API nor change anything through it.
func TestWebCrossOrigin(t *testing.T) {
	p := newProject(t, "", nil)
	w := p.web()
	b := newBrowser(t, 1280, 800)
	b.do(chromedp.Navigate(w.login))
	b.wait("the logged-in page", `!document.getElementById('app').hidden`)
	status := func(path string) int {
		return eval[int](b, fmt.Sprintf(`fetch(%q, {credentials: 'include'}).then((r) => r.status)`, path))
	}
	if got := status("api/session"); got != 200 {
		t.Errorf("the page reading api/session: %d, want 200", got)
	}
	for _, path := range []string{"/session", "/global/health", "/event"} {
		if got := status(path); got != 401 {
			t.Errorf("the page reading %s, outside the cookie's path: %d, want 401", path, got)
		}
	}

	evil := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(rw, `<!doctype html><title>another origin</title>`)
	}))
	defer evil.Close()
	b.do(chromedp.Navigate(evil.URL))
	read := eval[string](b, fmt.Sprintf(`fetch(%q, {credentials: 'include'}).then((r) => r.text(), (e) => 'blocked: ' + e.name)`, w.url+"/web/api/session"))
	if !strings.HasPrefix(read, "blocked") {
		t.Errorf("another origin read the sessions: %.300s", read)
	}
	for _, mode := range []string{"no-cors", "cors"} {
		eval[string](b, fmt.Sprintf(`fetch(%q, {method: 'POST', mode: %q, credentials: 'include', body: '{"title":"forged"}'}).then(() => 'sent', (e) => e.name)`, w.url+"/web/api/session", mode))
		eval[string](b, fmt.Sprintf(`fetch(%q, {method: 'POST', mode: %q, credentials: 'include', headers: {'Content-Type': 'text/plain'}, body: '{"title":"forged"}'}).then(() => 'sent', (e) => e.name)`, w.url+"/session", mode))
	}
	c := (&serveProc{url: w.url, token: w.token}).client(t)
	sessions, err := c.ListSessions(b.ctx, client.ListSessionsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if s.Title == "forged" {
			t.Errorf("another origin created a session: %+v", s)
		}
	}
}
