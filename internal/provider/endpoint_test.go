package provider

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

// endpointAdapters are one model of each adapter kind, with the wire
// fixture of a good answer and the path its requests go to.
var endpointAdapters = []struct {
	name, model, fixture, path string
}{
	{"anthropic", "anthropic/claude-sonnet-4-5", "anthropic-text.sse", "/v1/messages"},
	{"responses", "openai/gpt-5", "openai-responses-text.sse", "/v1/responses"},
	{"chat", "local/m", "openai-chat-text.sse", "/v1/chat/completions"},
	{"google", "google/gemini-2.5-pro", "gemini-text.sse", "/v1beta/models/gemini-2.5-pro:streamGenerateContent"},
}

const (
	endpointKeyAnthropic = "sk-ant-endpoint-0123456789"
	endpointKeyOpenAI    = "sk-endpoint-0123456789"
	endpointKeyGemini    = "gm-endpoint-0123456789"
	endpointKeyLocal     = "local-endpoint-0123456789"
)

// endpointRegistry points anthropic, openai, google and a custom
// OpenAI-compatible provider "local" at base, with keys from the
// environment (local's from the config).
func endpointRegistry(t *testing.T, base string) *Registry {
	t.Helper()
	cfg := &config.Config{Provider: map[string]config.Provider{
		"anthropic": {Options: config.ProviderOptions{BaseURL: base + "/v1"}},
		"openai":    {Options: config.ProviderOptions{BaseURL: base + "/v1"}},
		"google":    {Options: config.ProviderOptions{BaseURL: base}},
		"local": {NPM: "@ai-sdk/openai-compatible", Options: config.ProviderOptions{BaseURL: base + "/v1", APIKey: endpointKeyLocal},
			Models: map[string]config.ProviderModel{"m": {}}},
	}}
	return newRegistry(t, setup{cfg: cfg, env: map[string]string{
		"ANTHROPIC_API_KEY": endpointKeyAnthropic, "OPENAI_API_KEY": endpointKeyOpenAI, "GEMINI_API_KEY": endpointKeyGemini,
	}})
}

// streamOnce resolves model and streams one short request through it.
func streamOnce(t *testing.T, r *Registry, model string) llmtest.Result {
	t.Helper()
	p, m, err := r.Resolve(context.Background(), model)
	if err != nil {
		t.Fatal(err)
	}
	return llmtest.Collect(p.Stream(context.Background(), llmtest.Simple(m.ID)))
}

// TestStreamGuard sends each adapter answers with status 200 that cannot
// be a model's stream: each must fail at once, not as a broken stream to
// retry, naming the content type and the URL; a stream sent under a wrong
// content type still works.
func TestStreamGuard(t *testing.T) {
	type answer struct {
		name string
		h    func(fixture []byte) http.HandlerFunc
		kind llm.ErrorKind // "" when the stream must succeed
		want []string      // in the error; $URL is the request's URL
	}
	answers := []answer{
		{"web page", func([]byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Write([]byte("<!doctype html><html><body>It works!</body></html>"))
			}
		}, llm.ErrOther, []string{"unexpected content type text/html from $URL", "baseURL"}},
		{"empty with length", func([]byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Content-Length", "0") }
		}, llm.ErrOther, []string{"empty answer from $URL", "baseURL"}},
		{"empty event stream", func([]byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush() // chunked, then nothing
			}
		}, llm.ErrOther, []string{"empty answer from $URL", "baseURL"}},
		{"plain text", func([]byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Write([]byte("404 page not found\n"))
			}
		}, llm.ErrOther, []string{"unexpected content type text/plain from $URL", "404 page not found", "baseURL"}},
		{"no content type", func([]byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = nil
				w.Write([]byte("OK"))
			}
		}, llm.ErrOther, []string{"unexpected content type (none) from $URL", `"OK"`}},
		{"json answer", func([]byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[]}`))
			}
		}, llm.ErrOther, []string{"unexpected content type application/json from $URL", "stream"}},
		{"json error", func([]byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`))
			}
		}, llm.ErrAuth, []string{"Invalid API key", "codeloop auth login"}},
		{"stream as json", func(fixture []byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write(fixture)
			}
		}, "", nil},
	}
	for _, a := range endpointAdapters {
		fixture := llmtest.Wire(t, a.fixture)
		for _, ans := range answers {
			t.Run(a.name+"/"+ans.name, func(t *testing.T) {
				srv := llmtest.NewServer(t, ans.h(fixture))
				res := streamOnce(t, endpointRegistry(t, srv.URL), a.model)
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests, want 1", n)
				}
				if ans.kind == "" {
					if res.Err != nil || res.Text == "" {
						t.Fatalf("a stream under another content type failed: %v (text %q)", res.Err, res.Text)
					}
					return
				}
				if res.Err == nil {
					t.Fatalf("no error; text %q", res.Text)
				}
				if res.Err.Kind != ans.kind {
					t.Errorf("kind = %s, want %s: %v", res.Err.Kind, ans.kind, res.Err)
				}
				msg := res.Err.Error()
				for _, w := range ans.want {
					w = strings.ReplaceAll(w, "$URL", srv.URL+a.path)
					if !strings.Contains(msg, w) {
						t.Errorf("error lacks %q:\n%s", w, msg)
					}
				}
				for _, key := range []string{endpointKeyAnthropic, endpointKeyOpenAI, endpointKeyGemini, endpointKeyLocal} {
					if strings.Contains(msg, key) {
						t.Errorf("error shows a key: %s", msg)
					}
				}
			})
		}
	}
}

// TestRefusedLoopback points each adapter at a closed port on this
// machine, by address and by name: nothing listening there is not
// transient, so the error is not retryable and says where and what to do.
func TestRefusedLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	for _, host := range []string{"127.0.0.1", "localhost"} {
		for _, a := range endpointAdapters {
			t.Run(host+"/"+a.name, func(t *testing.T) {
				res := streamOnce(t, endpointRegistry(t, "http://"+net.JoinHostPort(host, port)), a.model)
				if res.Err == nil {
					t.Fatal("a closed port answered")
				}
				msg := res.Err.Error()
				if res.Err.Retryable() {
					t.Errorf("a refused loopback connection is retryable: %s", msg)
				}
				pid, _ := SplitModel(a.model)
				for _, w := range []string{"nothing is listening at " + net.JoinHostPort(host, port), "Ollama", "LM Studio",
					"provider." + pid + ".options.baseURL"} {
					if !strings.Contains(msg, w) {
						t.Errorf("error lacks %q:\n%s", w, msg)
					}
				}
			})
		}
	}
}

// TestAuthHint answers every adapter with a refused key: the error must
// name the provider, where the key came from (the variable, the config,
// auth.json) and codeloop auth login PROVIDER.
func TestAuthHint(t *testing.T) {
	refuse := func(status int) http.HandlerFunc {
		return llmtest.Status(status, nil, `{"error":{"message":"invalid api key","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}
	tests := []struct {
		name, model string
		status      int
		auth        string // auth.json
		noKey       bool   // local has no apiKey
		want        []string
	}{
		{"anthropic env", "anthropic/claude-sonnet-4-5", 401, "", false,
			[]string{"invalid api key", "anthropic refused the key in ANTHROPIC_API_KEY", "codeloop auth login anthropic"}},
		{"responses env", "openai/gpt-5", 401, "", false,
			[]string{"openai refused the key in OPENAI_API_KEY", "codeloop auth login openai"}},
		{"google env", "google/gemini-2.5-pro", 401, "", false,
			[]string{"google refused the key in GEMINI_API_KEY", "codeloop auth login google"}},
		{"chat config", "local/m", 401, "", false,
			[]string{"local refused the apiKey set in the config (provider.local.options.apiKey)", "codeloop auth login local"}},
		{"responses auth.json", "openai/gpt-5", 401, `{"openai":{"type":"api","key":"sk-saved-0123456789"}}`, false,
			[]string{"openai refused the key saved by codeloop auth login", "run codeloop auth login openai", "OPENAI_API_KEY"}},
		{"chat no key", "local/m", 401, "", true,
			[]string{"no API key was sent to local", "codeloop auth login local"}},
		{"anthropic forbidden", "anthropic/claude-sonnet-4-5", 403, "", false,
			[]string{"anthropic refused the key in ANTHROPIC_API_KEY", "may not use this model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, refuse(tt.status))
			r := endpointRegistry(t, srv.URL)
			if tt.auth != "" || tt.noKey {
				cfg := r.opts.Config
				if tt.noKey {
					local := cfg.Provider["local"]
					local.Options.APIKey = ""
					cfg.Provider["local"] = local
				}
				env := map[string]string{"ANTHROPIC_API_KEY": endpointKeyAnthropic, "GEMINI_API_KEY": endpointKeyGemini}
				if tt.auth == "" {
					env["OPENAI_API_KEY"] = endpointKeyOpenAI
				}
				r = newRegistry(t, setup{cfg: cfg, env: env, auth: tt.auth})
			}
			res := streamOnce(t, r, tt.model)
			if res.Err == nil || res.Err.Kind != llm.ErrAuth {
				t.Fatalf("want an auth error, got %v", res.Err)
			}
			msg := res.Err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
			if strings.Contains(msg, "sk-saved-0123456789") {
				t.Errorf("error shows the key: %s", msg)
			}
		})
	}
}
