package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/auth"
	"github.com/codeloop/codeloop/internal/llm/catalog"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
	"github.com/codeloop/codeloop/internal/paths"
)

// TestProxy sends each kind of provider's requests to a plain HTTP proxy
// named by HTTP_PROXY (read through Options.Getenv), and past it for the
// hosts NO_PROXY names.
func TestProxy(t *testing.T) {
	var mu sync.Mutex
	var hosts []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.URL.Host) // a proxied request carries the absolute URL
		mu.Unlock()
		if r.URL.Host == "openai.example.invalid" {
			llmtest.SSE(llmtest.Wire(t, "openai-chat-text.sse"))(w, r)
			return
		}
		http.Error(w, `{"error":{"message":"from the proxy"}}`, http.StatusBadRequest)
	}))
	t.Cleanup(proxy.Close)

	tests := []struct {
		npm, host, noProxy string
		proxied            bool
	}{
		{"@ai-sdk/openai-compatible", "openai.example.invalid", "", true},
		{"@ai-sdk/anthropic", "anthropic.example.invalid", "", true},
		{"@ai-sdk/google", "google.example.invalid", "", true},
		{"@ai-sdk/openai", "responses.example.invalid", "", true},
		{"@ai-sdk/openai-compatible", "direct.example.invalid", "localhost,direct.example.invalid", false},
	}
	for _, tt := range tests {
		t.Run(tt.npm+" "+tt.host, func(t *testing.T) {
			mu.Lock()
			hosts = nil
			mu.Unlock()
			env := map[string]string{"HTTP_PROXY": proxy.URL, "NO_PROXY": tt.noProxy}
			dir := t.TempDir()
			cfg := &config.Config{Provider: map[string]config.Provider{"p": {NPM: tt.npm,
				Options: config.ProviderOptions{BaseURL: "http://" + tt.host + "/v1", APIKey: "k"},
				Models:  map[string]config.ProviderModel{"m": {}}}}}
			r := New(Options{Config: cfg, Dirs: paths.Dirs{Data: dir, Cache: dir, State: dir},
				Getenv: func(k string) string { return env[k] }, NoLocalDetect: true,
				Catalog: catalog.NewSource(catalog.Options{Path: "testdata/catalog.json"}), Auth: &auth.Store{Path: filepath.Join(dir, "auth.json")}})
			ctx := context.Background()
			p, m, err := r.Resolve(ctx, "p/m")
			if err != nil {
				t.Fatal(err)
			}
			res := llmtest.Collect(p.Stream(ctx, &llm.Request{Model: m.ID, Messages: []llm.Message{{Role: llm.RoleUser,
				Parts: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}}))
			mu.Lock()
			got := append([]string(nil), hosts...)
			mu.Unlock()
			if tt.proxied {
				if len(got) == 0 || got[0] != tt.host {
					t.Errorf("the proxy saw %v, want a request for %s", got, tt.host)
				}
				if tt.host == "openai.example.invalid" && (res.Err != nil || res.Text == "") {
					t.Errorf("stream through the proxy: %+v", res)
				}
				return
			}
			if len(got) != 0 || res.Err == nil {
				t.Errorf("NO_PROXY: the proxy saw %v, stream err %v; want a direct (failing) request", got, res.Err)
			}
		})
	}
}
