package llm

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGuardStreams(t *testing.T) {
	tests := []struct {
		name, contentType, body string
		status                  int
		want                    string // "" when the answer must pass
	}{
		{"web page", "text/html; charset=utf-8", "<html><body>Welcome</body></html>", 200, "unexpected content type text/html"},
		{"empty", "text/event-stream", "", 200, "empty answer"},
		{"event stream", "text/event-stream", "data: {}\n\n", 200, ""},
		{"json", "application/json", `{"id":"x"}`, 200, ""},
		{"error page", "text/html", "<html>bad gateway</html>", 502, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				if tt.body == "" {
					w.Header().Set("Content-Length", "0")
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := &http.Client{Transport: GuardStreams(nil)}
			resp, err := c.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader("{}"))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("a valid answer was refused: %v", err)
				}
				resp.Body.Close()
				return
			}
			var le *Error
			if !errors.As(err, &le) || le.Retryable() || !strings.Contains(le.Message, tt.want) || !strings.Contains(le.Message, srv.URL) {
				t.Fatalf("want a non-retryable error saying %q and naming the URL, got %v", tt.want, err)
			}
		})
	}
}

func TestClassifyRefusedLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader("{}"))
	if err == nil {
		t.Fatal("a closed port answered")
	}
	e := Classify(Failure{Provider: "ollama", Err: err})
	if e.Retryable() || !strings.Contains(e.Message, "nothing is listening at "+addr) || !strings.Contains(e.Message, "baseURL") {
		t.Fatalf("a refused loopback connection: %+v (%v)", e, e)
	}
}

func TestClassifyAuthHint(t *testing.T) {
	e := Classify(Failure{Provider: "anthropic", StatusCode: 401,
		Body: []byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)})
	if e.Kind != ErrAuth || !strings.Contains(e.Error(), "anthropic") || !strings.Contains(e.Error(), "codeloop auth login anthropic") {
		t.Fatalf("a 401: %v", e)
	}
}
