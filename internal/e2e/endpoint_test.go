package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRunBadEndpoint points the model at endpoints that will never answer
// as a model does: each run must fail at once (no retries), exit 1, and say
// what is wrong and what to do.
func TestRunBadEndpoint(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>It works!</body></html>"))
	}))
	defer page.Close()
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "0")
	}))
	defer empty.Close()
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
	}))
	defer unauthorized.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()

	tests := []struct {
		name, url string
		want      []string
	}{
		{"web page", page.URL, []string{"unexpected content type text/html", "baseURL"}},
		{"empty answer", empty.URL, []string{"empty answer", "baseURL"}},
		{"nothing listening", closed, []string{"nothing is listening at " + strings.TrimPrefix(closed, "http://"), "baseURL"}},
		{"key refused", unauthorized.URL, []string{"fake", "codeloop auth login fake"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, nil, nil)
			r.writeConfig(`"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "` + tt.url + `/v1", "apiKey": "test"}`)
			start := time.Now()
			// A retried failure would take minutes; the rig fails a run
			// that outlives the timeout as a hang.
			_, stderr, code := r.run(20*time.Second, "run", "hello")
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "retrying") {
				t.Errorf("the failure was retried:\n%s", stderr)
			}
			t.Logf("failed in %v", time.Since(start).Round(time.Millisecond))
		})
	}
}
