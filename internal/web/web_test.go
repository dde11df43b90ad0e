package web

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(f *Front, method, target string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, req)
	return rec
}

// TestLogin: a code logs one browser in, once; the cookie is HttpOnly,
// SameSite=Strict and scoped to the prefix; wrong codes set nothing; the
// next code is offered after a login.
func TestLogin(t *testing.T) {
	spent := 0
	f := New(Options{Spent: func() { spent++ }})
	u, err := f.LoginURL("http://127.0.0.1:4096/")
	if err != nil {
		t.Fatal(err)
	}
	code, ok := strings.CutPrefix(u, "http://127.0.0.1:4096/web/login?code=")
	if !ok || len(code) < 40 {
		t.Fatalf("login URL %q", u)
	}
	for _, bad := range []string{"", "?code=", "?code=" + code + "x", "?code=" + strings.ToUpper(code)} {
		rec := get(f, "GET", "/web/login"+bad, nil)
		if rec.Code != http.StatusForbidden || rec.Header().Get("Set-Cookie") != "" {
			t.Errorf("login%s: %d, Set-Cookie %q", bad, rec.Code, rec.Header().Get("Set-Cookie"))
		}
	}
	rec := get(f, "GET", "/web/login?code="+code, nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/web/" {
		t.Fatalf("login: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	c := cookies[0]
	if c.Name != CookieName || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/web/" || c.Value == code {
		t.Errorf("cookie %+v", c)
	}
	if spent != 1 {
		t.Errorf("Spent called %d times, want 1", spent)
	}
	if rec := get(f, "GET", "/web/login?code="+code, nil); rec.Code != http.StatusForbidden {
		t.Errorf("a spent code: %d", rec.Code)
	}
	req := httptest.NewRequest("GET", "/web/api/session", nil)
	req.AddCookie(c)
	if !f.Authenticated(req) {
		t.Error("the login's cookie is not recognised")
	}
	req = httptest.NewRequest("GET", "/web/api/session", nil)
	req.AddCookie(&http.Cookie{Name: CookieName, Value: code})
	if f.Authenticated(req) {
		t.Error("the code itself passes as a cookie")
	}

	// Logging out: only from the page's own origin, then the cookie is void.
	out := func(origin string) int {
		req := httptest.NewRequest("POST", "http://127.0.0.1:4096/web/logout", nil)
		req.AddCookie(c)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := out("http://evil.example"); got != http.StatusForbidden {
		t.Errorf("a logout from another origin: %d", got)
	}
	if got := out(""); got != http.StatusForbidden {
		t.Errorf("a logout without Origin: %d", got)
	}
	req = httptest.NewRequest("GET", "/web/api/session", nil)
	req.AddCookie(c)
	if !f.Authenticated(req) {
		t.Error("a refused logout ended the session")
	}
	if got := out("http://127.0.0.1:4096"); got != http.StatusNoContent {
		t.Errorf("a logout from the page: %d", got)
	}
	if f.Authenticated(req) {
		t.Error("the cookie still works after the logout")
	}
}

// TestCodesAreBounded: only the newest codes stay valid.
func TestCodesAreBounded(t *testing.T) {
	f := New(Options{})
	var codes []string
	for range maxCodes + 2 {
		c, err := f.NewCode()
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, c)
	}
	if f.spend(codes[0]) || f.spend(codes[1]) {
		t.Error("the oldest codes are still valid")
	}
	if !f.spend(codes[len(codes)-1]) || !f.spend(codes[2]) {
		t.Error("a recent code is not valid")
	}
}

// TestFiles: the page's files are served with their types and the
// security headers; other paths are not found, and only GET reads them.
func TestFiles(t *testing.T) {
	f := New(Options{})
	for _, tc := range []struct {
		method, path string
		code         int
		ctype        string
	}{
		{"GET", "/web/", 200, "text/html; charset=utf-8"},
		{"GET", "/web/index.html", 200, "text/html; charset=utf-8"},
		{"GET", "/web/app.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/web/style.css", 200, "text/css; charset=utf-8"},
		{"HEAD", "/web/md.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/web", 303, ""},
		{"GET", "/web/nothing.js", 404, ""},
		{"GET", "/web/../web.go", 404, ""},
		{"GET", "/web/assets/app.js", 404, ""},
		{"POST", "/web/app.js", 405, ""},
	} {
		rec := get(f, tc.method, tc.path, nil)
		if rec.Code != tc.code || (tc.ctype != "" && rec.Header().Get("Content-Type") != tc.ctype) {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.code, tc.ctype)
		}
		h := rec.Header()
		if h.Get("Content-Security-Policy") != Policy || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: headers %v", tc.method, tc.path, h)
		}
	}
}

// TestAssetsStayOnTheOrigin: no asset loads anything from another origin
// or holds inline script or styles, which the policy would block anyway.
func TestAssetsStayOnTheOrigin(t *testing.T) {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		t.Fatal(err)
	}
	external := regexp.MustCompile(`(?:src|href)="(?:https?:)?//|@import|import\s*\(?\s*['"]https?:|fetch\(\s*['"]https?:|new EventSource\(\s*['"]https?:`)
	inline := regexp.MustCompile(`<script(?:\s+type="module")?\s*>|\son[a-z]+="|\sstyle="`)
	err = fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, name)
		if err != nil {
			return err
		}
		if m := external.Find(data); m != nil {
			t.Errorf("%s loads from another origin: %s", name, m)
		}
		if strings.HasSuffix(name, ".html") {
			if m := inline.Find(data); m != nil {
				t.Errorf("%s has inline code: %s", name, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(refusedPage, "codeloop web") || inline.MatchString(refusedPage) {
		t.Error("the refusal page does not say what to do, or has inline code")
	}
}
