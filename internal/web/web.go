// Package web is codeloop's browser front end: the page, written as plain
// ES modules and embedded in the binary (no JavaScript tool chain is
// needed to build it), and the login that gives a browser its session
// cookie.
//
// The server (internal/server) serves the front end under Prefix and its
// API a second time under APIPrefix, so that the cookie, scoped to
// Prefix, reaches the API without being sent anywhere else. A browser
// logs in by opening a login URL that carries a one-time code: the code
// is spent, an HttpOnly, SameSite=Strict cookie is set, and the browser
// is sent on to the clean URL.
package web

import (
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
)

// The paths the front end is served under.
const (
	// Prefix is where the page, its assets and the login are served.
	Prefix = "/web/"
	// APIPrefix is where the server serves its API a second time, for
	// the page: GET /web/api/session is GET /session.
	APIPrefix = Prefix + "api/"
	// LoginPath takes ?code=CODE, spends it and sets the cookie.
	LoginPath = Prefix + "login"
	// LogoutPath (POST) forgets the browser's session.
	LogoutPath = Prefix + "logout"
	// CookieName names the session cookie.
	CookieName = "codeloop_web"
)

// Policy is the Content-Security-Policy of every page and asset: scripts,
// styles and connections from the server's own origin only, no inline
// script, no framing.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed assets
var assets embed.FS

// maxCodes bounds the login codes waiting to be spent; the oldest go first.
const maxCodes = 16

// Front serves the page and keeps the login codes and the browsers'
// sessions, in memory: a restart logs every browser out.
type Front struct {
	files fs.FS
	// spent is called, outside the lock, after a code has been spent.
	spent func()

	mu       sync.Mutex
	codes    [][sha256.Size]byte // unspent, oldest first
	sessions map[[sha256.Size]byte]bool
}

// Options configure a Front.
type Options struct {
	// Spent is called after a login code has been spent (to offer the
	// next one); nil for none.
	Spent func()
}

// New returns a front end without codes or sessions.
func New(opts Options) *Front {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has the directory
	}
	return &Front{files: sub, spent: opts.Spent, sessions: map[[sha256.Size]byte]bool{}}
}

// Prefix returns the path the front end is served under.
func (f *Front) Prefix() string { return Prefix }

func secret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// NewCode makes a one-time login code and returns it.
func (f *Front) NewCode() (string, error) {
	code, err := secret()
	if err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.codes = append(f.codes, sha256.Sum256([]byte(code)))
	if len(f.codes) > maxCodes {
		f.codes = f.codes[len(f.codes)-maxCodes:]
	}
	return code, nil
}

// LoginURL returns the login URL on the server at base
// ("http://127.0.0.1:4096") with a new one-time code.
func (f *Front) LoginURL(base string) (string, error) {
	code, err := f.NewCode()
	if err != nil {
		return "", err
	}
	return strings.TrimRight(base, "/") + LoginPath + "?code=" + url.QueryEscape(code), nil
}

// spend removes code from the unspent codes and reports whether it was
// one of them.
func (f *Front) spend(code string) bool {
	if code == "" {
		return false
	}
	sum := sha256.Sum256([]byte(code))
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range f.codes {
		if c == sum {
			f.codes = append(f.codes[:i:i], f.codes[i+1:]...)
			return true
		}
	}
	return false
}

// Authenticated reports whether r carries a session cookie this front
// end issued. It does not look at where r comes from: the server checks
// the Origin of a request the cookie authenticates.
func (f *Front) Authenticated(r *http.Request) bool {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return false
	}
	sum := sha256.Sum256([]byte(c.Value))
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[sum]
}

// SetHeaders sets the security headers of every response of the front
// end and of the API it calls.
func SetHeaders(h http.Header) {
	h.Set("Content-Security-Policy", Policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// ServeHTTP serves the login, the logout and the page's files. None of
// them shows anything of a session: the page asks the API, which needs
// the cookie.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	SetHeaders(w.Header())
	switch {
	case r.URL.Path == LoginPath:
		f.login(w, r)
	case r.URL.Path == LogoutPath:
		f.logout(w, r)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case r.URL.Path == strings.TrimSuffix(Prefix, "/"):
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
	default:
		f.file(w, r)
	}
}

func (f *Front) login(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !f.spend(r.URL.Query().Get("code")) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(refusedPage))
		return
	}
	value, err := secret()
	if err != nil {
		http.Error(w, "no randomness", http.StatusInternalServerError)
		return
	}
	f.mu.Lock()
	f.sessions[sha256.Sum256([]byte(value))] = true
	f.mu.Unlock()
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: value, Path: Prefix,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	if f.spent != nil {
		f.spent()
	}
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

func (f *Front) logout(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// Only the page itself may log its browser out.
	if o := r.Header.Get("Origin"); o == "" || !SameOrigin(r, o) {
		http.Error(w, "cross-origin logout refused", http.StatusForbidden)
		return
	}
	if c, err := r.Cookie(CookieName); err == nil {
		f.mu.Lock()
		delete(f.sessions, sha256.Sum256([]byte(c.Value)))
		f.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: Prefix, MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

// SameOrigin reports whether origin ("http://host:port") is the origin
// r was sent to, as its Host header names it.
func SameOrigin(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// contentTypes are the types of the page's files; anything else is not
// served.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".json": "application/manifest+json",
}

func (f *Front) file(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, Prefix)
	if name == "" {
		name = "index.html"
	}
	name = path.Clean(name)
	ct, ok := contentTypes[path.Ext(name)]
	if !ok || !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	data, err := fs.ReadFile(f.files, name)
	if errors.Is(err, fs.ErrNotExist) {
		http.NotFound(w, r)
		return
	} else if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", "no-cache")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(data)
}

// refusedPage answers a wrong or spent login code.
const refusedPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>codeloop: login refused</title><link rel="stylesheet" href="style.css"></head>
<body class="gate"><main><h1>This login link does not work</h1>
<p>Each login link works once. Run <code>codeloop web</code> on the machine to get a new one:
it prints the link, and prints the next one whenever a link has been used.</p></main></body></html>
`
