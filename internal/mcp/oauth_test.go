package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/codeloop/codeloop/internal/config"
)

// authServer is an OAuth 2.1 authorisation server and an MCP server that
// requires its tokens, both on one httptest server: metadata discovery,
// dynamic client registration, authorisation codes with PKCE, and refresh
// tokens that rotate.
type authServer struct {
	t   *testing.T
	url string
	// tokenLife is the lifetime announced for access tokens; under ten
	// seconds the client sees them as expired at once and refreshes.
	tokenLife int

	mu             sync.Mutex
	clients        map[string][]string // client id -> redirect URIs
	codes          map[string]authCode
	access         map[string]time.Time
	refresh        map[string]string // refresh token -> client id
	registrations  int
	refreshes      int
	authorizations []url.Values
}

type authCode struct {
	clientID, redirect, challenge string
}

func newAuthServer(t *testing.T, tokenLife int) *authServer {
	a := &authServer{
		t: t, tokenLife: tokenLife,
		clients: map[string][]string{}, codes: map[string]authCode{},
		access: map[string]time.Time{}, refresh: map[string]string{},
	}
	stop := make(chan struct{})
	srv := newTestServer(stop)
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: a.url + "/mcp", AuthorizationServers: []string{a.url}, ScopesSupported: []string{"mcp"},
		}).ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                a.url,
			"authorization_endpoint":                a.url + "/authorize",
			"token_endpoint":                        a.url + "/token",
			"registration_endpoint":                 a.url + "/register",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
			"scopes_supported":                      []string{"mcp", "offline_access"},
		})
	})
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		exp, ok := a.access[tok]
		if !ok || time.Now().After(exp) {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: []string{"mcp"}, Expiration: exp}, nil
	}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
			ResourceMetadataURL: a.url + "/.well-known/oauth-protected-resource/mcp",
		})(mcpHandler).ServeHTTP(w, r)
	})
	a.url = serveHTTP(t, mux, stop)
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func randomString() string { return rand.Text() }

func (a *authServer) register(w http.ResponseWriter, r *http.Request) {
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		http.Error(w, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	id := "client-" + randomString()
	a.clients[id] = meta.RedirectURIs
	a.registrations++
	a.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
	writeJSON(w, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (a *authServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.authorizations = append(a.authorizations, q)
	redirect := q.Get("redirect_uri")
	if !slices.Contains(a.clients[q.Get("client_id")], redirect) {
		http.Error(w, "unknown client or redirect", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "PKCE with S256 is required", http.StatusBadRequest)
		return
	}
	code := randomString()
	a.codes[code] = authCode{clientID: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge")}
	http.Redirect(w, r, redirect+"?code="+url.QueryEscape(code)+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
}

func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f := r.PostForm
	if id, _, ok := r.BasicAuth(); ok {
		f.Set("client_id", id) // a client may authenticate with HTTP Basic
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":%q}`, code)
	}
	var client string
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := a.codes[f.Get("code")]
		delete(a.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok || c.clientID != f.Get("client_id") || c.redirect != f.Get("redirect_uri"):
			fail("invalid_grant")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			fail("invalid_grant") // the PKCE verifier does not match
			return
		}
		client = c.clientID
	case "refresh_token":
		c, ok := a.refresh[f.Get("refresh_token")]
		if !ok || c != f.Get("client_id") {
			fail("invalid_grant")
			return
		}
		delete(a.refresh, f.Get("refresh_token"))
		a.refreshes++
		client = c
	default:
		fail("unsupported_grant_type")
		return
	}
	access, refresh := "at-"+randomString(), "rt-"+randomString()
	a.access[access] = time.Now().Add(time.Hour)
	a.refresh[refresh] = client
	writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": a.tokenLife, "refresh_token": refresh, "scope": "mcp"})
}

// revoke forgets every token the server issued.
func (a *authServer) revoke() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access, a.refresh = map[string]time.Time{}, map[string]string{}
}

func (a *authServer) counts() (registrations, refreshes, authorizations int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.registrations, a.refreshes, len(a.authorizations)
}

// browser plays the user: it visits the authorisation URL and follows the
// redirect to codeloop's callback server.
func browser(t *testing.T) func(string) error {
	client := testHTTPClient(t)
	return func(u string) error {
		resp, err := client.Get(u)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("callback answered %s", resp.Status)
		}
		return nil
	}
}

func TestOAuthEndToEnd(t *testing.T) {
	as := newAuthServer(t, 3600)
	store := NewAuthStore(filepath.Join(t.TempDir(), "mcp-auth.json"))
	servers := map[string]config.MCP{"secure": {Type: "remote", URL: as.url + "/mcp"}}
	opts := Options{Auth: store, CallbackPort: freePort(t)}

	// Without a token the server needs authorisation; nothing is
	// registered behind the user's back.
	m := start(t, servers, opts)
	if st := m.Status()["secure"]; st.State != StateNeedsAuth {
		t.Fatalf("status = %+v, want needs_auth", st)
	}
	if reg, _, _ := as.counts(); reg != 0 {
		t.Errorf("registrations before auth = %d", reg)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Authenticate(ctx, "secure", browser(t)); err != nil {
		t.Fatal(err)
	}
	if st := m.Status()["secure"]; st.State != StateConnected {
		t.Fatalf("status after auth = %+v", st)
	}
	if res, err := run(t, findTool(t, m, "secure_echo"), `{"text":"authorised"}`, nil); err != nil || res.Output != "authorised" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	reg, _, authz := as.counts()
	if reg != 1 || authz != 1 {
		t.Errorf("registrations = %d, authorizations = %d, want 1 and 1", reg, authz)
	}
	as.mu.Lock()
	q := as.authorizations[0]
	as.mu.Unlock()
	if !strings.Contains(q.Get("scope"), "mcp") || q.Get("resource") != as.url+"/mcp" {
		t.Errorf("authorization request = %v", q)
	}

	fi, err := os.Stat(store.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("auth file mode = %v, want 0600", fi.Mode().Perm())
	}
	e, ok, err := store.Get("secure")
	if err != nil || !ok || e.ClientID == "" || e.RefreshToken == "" || e.TokenURL != as.url+"/token" || e.ServerURL != as.url+"/mcp" {
		t.Fatalf("stored entry = %+v, %v, %v", e, ok, err)
	}
	m.Close()

	// A later start uses the saved token without the user.
	m2 := start(t, servers, opts)
	if st := m2.Status()["secure"]; st.State != StateConnected {
		t.Fatalf("status with saved token = %+v", st)
	}
	m2.Close()

	// Once the tokens are revoked, codeloop asks for authorisation again.
	as.revoke()
	m3 := start(t, servers, opts)
	if st := m3.Status()["secure"]; st.State != StateNeedsAuth {
		t.Fatalf("status with revoked token = %+v", st)
	}
	// Authorising again reuses the registered client.
	if err := m3.Authenticate(ctx, "secure", browser(t)); err != nil {
		t.Fatal(err)
	}
	if reg, _, authz := as.counts(); reg != 1 || authz != 2 {
		t.Errorf("registrations = %d, authorizations = %d, want 1 and 2", reg, authz)
	}
}

func TestOAuthRefresh(t *testing.T) {
	// Five-second tokens are stale to the client at once, so every use
	// refreshes them.
	as := newAuthServer(t, 5)
	store := NewAuthStore(filepath.Join(t.TempDir(), "mcp-auth.json"))
	servers := map[string]config.MCP{"secure": {Type: "remote", URL: as.url + "/mcp"}}
	m := start(t, servers, Options{Auth: store, CallbackPort: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Authenticate(ctx, "secure", browser(t)); err != nil {
		t.Fatal(err)
	}
	_, before, _ := as.counts()
	if res, err := run(t, findTool(t, m, "secure_echo"), `{"text":"fresh"}`, nil); err != nil || res.Output != "fresh" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	_, after, _ := as.counts()
	if after <= before {
		t.Errorf("refreshes = %d then %d; the stale token was not refreshed", before, after)
	}
	// The rotated tokens are saved: a new start refreshes with them.
	m.Close()
	m2 := start(t, servers, Options{Auth: store, CallbackPort: -1})
	if st := m2.Status()["secure"]; st.State != StateConnected {
		t.Fatalf("status with saved refresh token = %+v", st)
	}
}

func TestOAuthPreregisteredClient(t *testing.T) {
	as := newAuthServer(t, 3600)
	// The client was registered out of band for a fixed callback port.
	port := freePort(t)
	redirect := fmt.Sprintf("http://127.0.0.1:%d%s", port, callbackPath)
	as.clients["fixed-client"] = []string{redirect}
	store := NewAuthStore(filepath.Join(t.TempDir(), "mcp-auth.json"))
	servers := map[string]config.MCP{"secure": {Type: "remote", URL: as.url + "/mcp",
		OAuth: &config.MCPOAuth{ClientID: "fixed-client", CallbackPort: &port}}}
	m := start(t, servers, Options{Auth: store})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Authenticate(ctx, "secure", browser(t)); err != nil {
		t.Fatal(err)
	}
	if reg, _, _ := as.counts(); reg != 0 {
		t.Errorf("registrations = %d with a configured client id", reg)
	}
	if e, _, _ := store.Get("secure"); e.ClientID != "fixed-client" || e.RedirectURL != redirect {
		t.Errorf("stored entry = %+v", e)
	}
}

func TestOAuthDisabledForLocal(t *testing.T) {
	m := start(t, map[string]config.MCP{"loc": {Type: "local", Command: []string{"/nonexistent"}}}, Options{Auth: NewAuthStore(filepath.Join(t.TempDir(), "a.json"))})
	if err := m.Authenticate(context.Background(), "loc", browser(t)); err == nil || !strings.Contains(err.Error(), "not a remote server") {
		t.Errorf("err = %v", err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
