package llm

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

func TestGuardStreams(t *testing.T) {
	const key = "sk-guard-0123456789abcdef"
	tests := []struct {
		name, contentType, body string
		status                  int
		kind                    ErrorKind // "" when the answer must pass
		want                    string
	}{
		{"web page", "text/html; charset=utf-8", "<html><body>Welcome</body></html>", 200, ErrOther, "unexpected content type text/html from $URL: a web page"},
		{"xhtml", "application/xhtml+xml", "<html/>", 200, ErrOther, "unexpected content type application/xhtml+xml from $URL"},
		{"empty", "text/event-stream", "", 200, ErrOther, "empty answer from $URL"},
		{"blank", "text/plain", " \n\n ", 200, ErrOther, "empty answer from $URL"},
		{"plain", "text/plain", "Bad Gateway\n", 200, ErrOther, `unexpected content type text/plain from $URL: "Bad Gateway"`},
		{"json", "application/json", `{"id":"x"}`, 200, ErrOther, "unexpected content type application/json from $URL: a complete JSON answer"},
		{"json error", "application/json", `{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}`, 200, ErrRetryable, "Rate limit reached"},
		{"json error echoing the key", "application/json", `{"error":{"message":"bad key ` + key + `"}}`, 200, ErrOther, "bad key sk-g…cdef"},
		{"gemini error list", "application/json", `[{"error":{"code":401,"message":"API key not valid","status":"UNAUTHENTICATED"}}]`, 200, ErrAuth, "API key not valid"},
		{"event stream", "text/event-stream", "data: {}\n\n", 200, "", ""},
		{"events under json", "application/json", "data: {}\n\n", 200, "", ""},
		{"events without type", "", "\n: keep-alive\n\ndata: {}\n\n", 200, "", ""},
		{"bedrock", "application/vnd.amazon.eventstream", "\x00\x00\x00\x10", 200, "", ""},
		{"error page", "text/html", "<html>bad gateway</html>", 502, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.contentType == "" {
					w.Header()["Content-Type"] = nil
				} else {
					w.Header().Set("Content-Type", tt.contentType)
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := &http.Client{Transport: GuardStreams("acme", NewSecrets(key), nil)}
			u := srv.URL + "/v1/chat/completions?key=" + key
			resp, err := c.Post(u, "application/json", strings.NewReader("{}"))
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("a valid answer was refused: %v", err)
				}
				defer resp.Body.Close()
				// Small reads: the sniffed start must come back intact.
				got, err := io.ReadAll(iotest.OneByteReader(resp.Body))
				if err != nil || string(got) != tt.body {
					t.Errorf("body = %q, %v; want %q", got, err, tt.body)
				}
				return
			}
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("want an *Error, got %v", err)
			}
			want := strings.ReplaceAll(tt.want, "$URL", srv.URL+"/v1/chat/completions?key="+Mask(key))
			if le.Kind != tt.kind || le.Provider != "acme" || !strings.Contains(le.Message, want) {
				t.Errorf("got %s %q, want %s saying %q", le.Kind, le.Error(), tt.kind, want)
			}
			if strings.Contains(le.Error(), key) {
				t.Errorf("error shows the key: %v", le)
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
	_, port, _ := net.SplitHostPort(addr)
	ln.Close()
	for _, host := range []string{"127.0.0.1", "localhost"} {
		where := net.JoinHostPort(host, port)
		_, err = http.Post("http://"+where+"/v1/chat/completions", "application/json", strings.NewReader("{}"))
		if err == nil {
			t.Fatal("a closed port answered")
		}
		e := Classify(Failure{Provider: "ollama", Err: err})
		if e.Retryable() || !strings.Contains(e.Message, "nothing is listening at "+where) ||
			!strings.Contains(e.Message, "provider.ollama.options.baseURL") {
			t.Errorf("a refused loopback connection: %+v (%v)", e, e)
		}
	}
}

// TestClassifyRefused checks which refused connections are transient:
// a remote server may be restarting, nothing listens on this machine.
func TestClassifyRefused(t *testing.T) {
	refused := func(u, ip string) error {
		return &url.Error{Op: "Post", URL: u, Err: &net.OpError{Op: "dial", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 8080}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	}
	tests := []struct {
		name  string
		err   error
		local string // "" when it must stay retryable
	}{
		{"remote", refused("http://10.1.2.3:8080/v1", "10.1.2.3"), ""},
		{"remote name", refused("http://models.example:8080/v1", "203.0.113.9"), ""},
		{"loopback", refused("http://127.0.0.1:8080/v1", "127.0.0.1"), "127.0.0.1:8080"},
		{"loopback range", refused("http://127.1.2.3:8080/v1", "127.1.2.3"), "127.1.2.3:8080"},
		{"ipv6 loopback", refused("http://[::1]:8080/v1", "::1"), "[::1]:8080"},
		{"localhost", refused("http://localhost:8080/v1", "127.0.0.1"), "localhost:8080 (127.0.0.1:8080)"},
		{"unspecified", refused("http://0.0.0.0:8080/v1", "0.0.0.0"), "0.0.0.0:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Classify(Failure{Provider: "lmstudio", Err: tt.err})
			if tt.local == "" {
				if !e.Retryable() {
					t.Errorf("a refused remote connection is not retried: %v", e)
				}
				return
			}
			if e.Retryable() || !strings.Contains(e.Message, "nothing is listening at "+tt.local+" (connection refused)") {
				t.Errorf("got %v", e)
			}
		})
	}
}
