package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCredentialInQuery: a credential-like query parameter is refused
// with 400 and a JSON error pointing to the Authorization header, with or
// without a valid header, and its value is neither echoed nor logged.
// Other query parameters pass.
func TestCredentialInQuery(t *testing.T) {
	var logs lockedBuffer
	r := newRig(t, "", Options{Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	names := []string{"token", "Token", "api_key", "apikey", "apiKey", "API-KEY", "key", "access_token", "auth_token",
		"password", "pass", "passwd", "auth", "secret", "client_secret", "authorization", "x-api-key", "id_token"}
	for _, name := range names {
		for _, header := range []bool{true, false} {
			req := r.request("GET", "/session?sessionID=x&"+name+"="+testToken, "")
			if !header {
				req.Header.Del("Authorization")
			}
			got, text := r.do(req)
			if got != http.StatusBadRequest || !strings.Contains(text, "Authorization header") || !strings.Contains(text, `"name":"BadRequestError"`) {
				t.Errorf("?%s= (header %v): status %d: %s", name, header, got, text)
			}
			if strings.Contains(text, testToken) {
				t.Errorf("?%s=: the refusal echoes the token: %s", name, text)
			}
		}
	}
	for _, path := range []string{"/session", "/session?directory=/tmp", "/event?sessionID=x"} {
		if got, text := r.do(r.request("GET", path, "")); got != http.StatusOK {
			t.Errorf("%s: status %d: %s", path, got, text)
		}
	}
	if strings.Contains(logs.String(), testToken) {
		t.Errorf("the log holds the token:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "credential") {
		t.Errorf("the refusals were not logged:\n%s", logs.String())
	}
}

func TestCredentialParam(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "api_key": true, "ApiKey": true, "access-token": true, "refresh_token": true, "PASSWORD": true,
		"sessionID": false, "directory": false, "type": false, "limit": false, "keys": false, "monkey": false, "passage": false,
	} {
		if got := credentialParam(name); got != want {
			t.Errorf("credentialParam(%q) = %v, want %v", name, got, want)
		}
	}
}
