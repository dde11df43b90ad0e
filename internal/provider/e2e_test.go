package provider

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/auth"
	"github.com/codeloop/codeloop/internal/llm/catalog"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
	"github.com/codeloop/codeloop/internal/paths"
)

// TestCustomOpenAICompatible loads an OpenCode config that defines a custom
// @ai-sdk/openai-compatible provider pointing at a local server, and
// streams an answer through the registry.
func TestCustomOpenAICompatible(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Wire(t, "openai-chat-text.sse")))
	root := t.TempDir()
	project := filepath.Join(root, "project")
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	conf := `{
  "$schema": "https://opencode.ai/config.json",
  // a local OpenAI-compatible server
  "provider": {
    "myllm": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "My LLM",
      "options": {"baseURL": "` + srv.URL + `/v1", "apiKey": "{env:MY_LLM_KEY}", "headers": {"X-Team": "core"}},
      "models": {"my-model": {"name": "My Model", "limit": {"context": 32000, "output": 4000}}},
    },
  },
  "model": "myllm/my-model",
}`
	if err := os.WriteFile(filepath.Join(project, "opencode.json"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MY_LLM_KEY": "local-secret-key", "HOME": root}
	getenv := func(k string) string { return env[k] }
	dirs := paths.Dirs{Data: filepath.Join(root, "data"), Config: filepath.Join(root, "config"), Cache: filepath.Join(root, "cache"),
		State: filepath.Join(root, "state"), Home: root}
	loaded, err := config.Load(context.Background(), config.LoadOptions{Cwd: project, Getenv: getenv, Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	loaded.Use(true) // the user trusts the project that names the provider
	r := New(Options{Config: loaded.Config, Dirs: dirs, Getenv: getenv, HTTPClient: llmtest.HTTPClient(t), UserAgent: "codeloop/test",
		Catalog: catalog.NewSource(catalog.Options{CacheDir: dirs.Cache, Disabled: true}), NoLocalDetect: true})
	ctx := context.Background()
	model, err := r.Default(ctx)
	if err != nil || model != "myllm/my-model" {
		t.Fatalf("default = %q, %v", model, err)
	}
	p, m, err := r.Resolve(ctx, model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "My Model" || m.Limit.Output != 4000 {
		t.Errorf("model = %+v", m)
	}
	opts, err := r.Params(ctx, model, "")
	if err != nil {
		t.Fatal(err)
	}
	opts.CacheKey = "ses_1"
	req := &llm.Request{Model: m.ID, System: []string{"Be brief."}, Options: opts,
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "Say hello"}}}}}
	res := llmtest.Collect(p.Stream(ctx, req))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.Text != "Hello! How can I assist you today?" || res.Finish.Reason != llm.FinishStop || res.Finish.Usage.Input != 19 {
		t.Errorf("text %q finish %+v", res.Text, res.Finish)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" {
		t.Errorf("path = %q", got.Path)
	}
	if got.Header.Get("Authorization") != "Bearer local-secret-key" || got.Header.Get("X-Team") != "core" ||
		got.Header.Get("User-Agent") != "codeloop/test" {
		t.Errorf("headers = %v", got.Header)
	}
	var body map[string]any
	json.Unmarshal(got.Body, &body)
	if body["model"] != "my-model" || body["max_tokens"] != 4000.0 {
		t.Errorf("body = %s", got.Body)
	}
}

// TestLocalDetection finds Ollama and an OpenAI-compatible server (LM
// Studio) without configuration, beside a configured provider, with the
// context lengths the servers give, and streams from a local model.
func TestLocalDetection(t *testing.T) {
	// A plain httptest server: llmtest's reads the request bodies /api/show needs.
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			w.Write([]byte(`{"models":[{"name":"qwen2.5-coder:7b","model":"qwen2.5-coder:7b"},{"name":"llama3.2:3b"}]}`))
		case "/api/show":
			var req struct{ Model string }
			_ = json.NewDecoder(r.Body).Decode(&req)
			switch req.Model {
			case "qwen2.5-coder:7b":
				w.Write([]byte(`{"parameters":"stop \"<|im_end|>\"","model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}`))
			case "llama3.2:3b":
				w.Write([]byte(`{"parameters":"num_ctx 8192\nstop x","model_info":{"general.architecture":"llama","llama.context_length":131072}}`))
			}
		case "/v1/chat/completions":
			llmtest.SSE(llmtest.Wire(t, "openai-chat-text.sse"))(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ollama.Close)
	lmstudio := llmtest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			w.Write([]byte(`{"data":[{"id":"qwen/qwen3-8b"},{"id":"text-embedding-nomic-embed-text-v1.5"},{"id":"served","max_model_len":16384}]}`))
		case "/api/v0/models":
			w.Write([]byte(`{"data":[{"id":"qwen/qwen3-8b","type":"llm","max_context_length":40960},` +
				`{"id":"text-embedding-nomic-embed-text-v1.5","type":"embeddings","max_context_length":2048}]}`))
		default:
			http.NotFound(w, r)
		}
	})
	mk := func(env map[string]string) *Registry {
		dir := t.TempDir()
		return New(Options{Dirs: paths.Dirs{Data: dir, Cache: dir, State: dir}, Getenv: func(k string) string { return env[k] },
			Catalog: catalog.NewSource(catalog.Options{Path: "testdata/catalog.json"}), Auth: &auth.Store{Path: filepath.Join(dir, "auth.json")},
			OllamaURL: ollama.URL, LMStudioURL: lmstudio.URL, HTTPClient: llmtest.HTTPClient(t)})
	}
	ctx := context.Background()

	// A configured provider comes first; the local servers are listed too.
	configured := mk(map[string]string{"OPENAI_API_KEY": "k"})
	configured.DetectLocal(ctx)
	if got := ids(t, configured); strings.Join(got, ",") != "openai:env,lmstudio:local,ollama:local" {
		t.Errorf("providers = %v", got)
	}
	if def, err := configured.Default(ctx); err != nil || !strings.HasPrefix(def, "openai/") {
		t.Errorf("default = %q, %v; want the configured provider's", def, err)
	}
	if got := ids(t, mk(map[string]string{"OPENAI_API_KEY": "k", "CODELOOP_DISABLE_LOCAL_MODELS": "1"})); strings.Join(got, ",") != "openai:env" {
		t.Errorf("local models switched off: providers = %v", got)
	}

	r := mk(nil)
	if got := ids(t, r); strings.Join(got, ",") != "lmstudio:local,ollama:local" {
		t.Fatalf("providers = %v", got)
	}
	contexts := func(id string) map[string]int64 {
		p, _ := r.Provider(ctx, id)
		out := map[string]int64{}
		for _, m := range p.Models() {
			out[m.Key] = m.Limit.Context
		}
		return out
	}
	if got := contexts("lmstudio"); !maps.Equal(got, map[string]int64{"qwen/qwen3-8b": 40960, "served": 16384}) {
		t.Errorf("lmstudio models = %v (no embedding model; context lengths from /api/v0/models and max_model_len)", got)
	}
	if got := contexts("ollama"); !maps.Equal(got, map[string]int64{"qwen2.5-coder:7b": 32768, "llama3.2:3b": 8192}) {
		t.Errorf("ollama models = %v (context length from model_info, num_ctx when set)", got)
	}
	def, err := r.Default(ctx)
	if err != nil || (def != "lmstudio/qwen/qwen3-8b" && def != "ollama/llama3.2:3b") {
		t.Errorf("default = %q, %v", def, err)
	}
	p, m, err := r.Resolve(ctx, "ollama/qwen2.5-coder:7b")
	if err != nil {
		t.Fatal(err)
	}
	res := llmtest.Collect(p.Stream(ctx, &llm.Request{Model: m.ID, Messages: []llm.Message{{Role: llm.RoleUser,
		Parts: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}}))
	if res.Err != nil || res.Text == "" {
		t.Errorf("local stream: %+v", res)
	}
}

// TestLocalDetectionBounded: DetectLocal returns while a local server has
// not answered, and the registry answers without the server's models once
// the probe's budget is spent.
func TestLocalDetectionBounded(t *testing.T) {
	release := make(chan struct{})
	hung := llmtest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	dir := t.TempDir()
	r := New(Options{Dirs: paths.Dirs{Data: dir, Cache: dir, State: dir}, Getenv: func(string) string { return "" },
		Catalog: catalog.NewSource(catalog.Options{Path: "testdata/catalog.json"}), Auth: &auth.Store{Path: filepath.Join(dir, "auth.json")},
		OllamaURL: hung.URL, LMStudioURL: hung.URL, HTTPClient: llmtest.HTTPClient(t)})
	r.DetectLocal(context.Background()) // returns although the server has not answered
	if got := ids(t, r); len(got) != 0 {
		t.Errorf("providers = %v, want none", got)
	}
}
