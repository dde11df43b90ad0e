package catalog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestEmbedded(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"anthropic", "openai", "google", "deepseek", "groq", "openrouter", "xai", "mistral"} {
		p, ok := c.Provider(id)
		if !ok {
			t.Errorf("provider %s missing", id)
			continue
		}
		if p.ID != id || p.Name == "" || p.NPM == "" || len(p.Models()) == 0 {
			t.Errorf("provider %s incomplete: %+v", id, p)
		}
		for mid, m := range p.Models() {
			if m.ID != mid || m.Name == "" {
				t.Errorf("%s/%s: id or name missing: %+v", id, mid, m)
			}
		}
	}
	if p, _ := c.Provider("anthropic"); len(p.Env) == 0 || p.Env[0] != "ANTHROPIC_API_KEY" {
		t.Errorf("anthropic env = %v", p.Env)
	}
}

const sample = `{
  "acme": {"id": "acme", "name": "Acme", "env": ["ACME_KEY"], "npm": "@ai-sdk/openai-compatible", "api": "https://acme.test/v1",
    "models": {
      "fast": {"id": "fast", "name": "Fast", "attachment": false, "reasoning": true, "tool_call": {"supported": true},
        "interleaved": {"field": "reasoning_content"}, "temperature": false,
        "modalities": {"input": ["text"], "output": ["text"]},
        "cost": {"input": 1, "output": 2, "cache_read": 0.1, "context_over_200k": {"input": 2, "output": 4},
          "tiers": [{"size": 128000, "input": 1.5, "output": 3}]},
        "limit": {"context": 128000, "output": 8000}},
      "broken": {"id": "broken", "limit": "not an object"},
      "plain": {"id": "plain", "name": "Plain", "tool_call": true, "interleaved": true, "limit": {"context": 1, "output": 1}}
    }},
  "bad": "not a provider"
}`

func TestParse(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if ids := c.ProviderIDs(); len(ids) != 2 {
		t.Errorf("ids before decoding = %v", ids)
	}
	if _, ok := c.Provider("bad"); ok {
		t.Error("a malformed provider was kept")
	}
	if ids := c.ProviderIDs(); len(ids) != 1 || len(c.Providers()) != 1 {
		t.Errorf("ids %v, providers %d", ids, len(c.Providers()))
	}
	p, _ := c.Provider("acme")
	if _, ok := p.Model("broken"); ok {
		t.Error("a malformed model was kept")
	}
	m, ok := c.Model("acme", "fast")
	if !ok {
		t.Fatal("model missing")
	}
	if !bool(m.ToolCall) || m.Interleaved == nil || m.Interleaved.Field != "reasoning_content" || m.SupportsTemperature() {
		t.Errorf("capabilities misread: %+v", m)
	}
	lm := m.LLM("acme")
	if lm.ProviderID != "acme" || lm.Limit.Context != 128000 || lm.Cost.Over200K == nil || lm.Cost.Over200K.Input != 2 ||
		len(lm.Cost.Tiers) != 1 || lm.Cost.Tiers[0].Above != 128000 || lm.Temperature {
		t.Errorf("LLM() = %+v", lm)
	}
	plain, _ := c.Model("acme", "plain")
	if plain.Interleaved == nil || plain.Interleaved.Field != "" || !plain.SupportsTemperature() {
		t.Errorf("plain = %+v", plain)
	}
	if _, err := Parse([]byte(`{}`)); err == nil {
		t.Error("an empty catalog parsed")
	}
	if _, err := Parse([]byte(`[`)); err == nil {
		t.Error("broken JSON parsed")
	}
}

func TestPackRoundTrip(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	packed, err := c.Pack()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(packed)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"fast", "plain"} {
		a, _ := c.Model("acme", id)
		b, ok := d.Model("acme", id)
		if !ok || !reflect.DeepEqual(a, b) {
			t.Errorf("%s after packing = %+v, want %+v", id, b, a)
		}
	}
	p, _ := d.Provider("acme")
	if p.Name != "Acme" || p.API != "https://acme.test/v1" || p.Env[0] != "ACME_KEY" {
		t.Errorf("provider after packing = %+v", p)
	}
}

func TestSourcePrefersCache(t *testing.T) {
	dir := t.TempDir()
	s := NewSource(Options{CacheDir: dir, Disabled: true})
	c, err := s.Catalog()
	if err != nil || s.Origin() != "embedded" || !has(c, "anthropic") {
		t.Fatalf("without a cache: origin %q err %v", s.Origin(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	s = NewSource(Options{CacheDir: dir, Disabled: true})
	c, err = s.Catalog()
	if err != nil || s.Origin() != "cache" || !has(c, "acme") {
		t.Fatalf("with a cache: origin %q err %v", s.Origin(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = NewSource(Options{CacheDir: dir, Disabled: true})
	if _, err := s.Catalog(); err != nil || s.Origin() != "embedded" {
		t.Fatalf("with a corrupt cache: origin %q err %v", s.Origin(), err)
	}
}

func TestSourcePinnedPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pinned.json")
	if err := os.WriteFile(p, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSource(Options{Path: p, CacheDir: t.TempDir()})
	if c, err := s.Catalog(); err != nil || !has(c, "acme") {
		t.Fatal(err)
	}
	if err := s.Refresh(context.Background()); !errors.Is(err, ErrFetchDisabled) {
		t.Errorf("refresh with a pinned file: %v", err)
	}
}

func TestRefresh(t *testing.T) {
	status := http.StatusOK
	body := sample
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	dir := t.TempDir()
	s := NewSource(Options{CacheDir: dir, URL: srv.URL})
	if !s.Stale(time.Now()) {
		t.Error("a missing cache is not stale")
	}
	if err := <-s.RefreshInBackground(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Catalog(); !has(c, "acme") || s.Origin() != "cache" {
		t.Error("refreshed catalog not in use")
	}
	// The next start reads the packed copy written beside models.json.
	packed, err := os.ReadFile(filepath.Join(dir, "models.pack"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := Parse(packed); err != nil || !has(c, "acme") {
		t.Errorf("packed cache: %v", err)
	}
	if c, err := NewSource(Options{CacheDir: dir, Disabled: true}).Catalog(); err != nil || !has(c, "acme") {
		t.Errorf("a new source does not read the cache: %v", err)
	}
	if s.Stale(time.Now()) {
		t.Error("fresh cache is stale")
	}
	if err := <-s.RefreshInBackground(context.Background()); err != nil {
		t.Errorf("fresh cache refreshed: %v", err)
	}
	// A failed or invalid fetch keeps the cached copy.
	for _, tc := range []struct {
		status int
		body   string
	}{{http.StatusInternalServerError, "oops"}, {http.StatusOK, "{}"}} {
		status, body = tc.status, tc.body
		if err := s.Refresh(context.Background()); err == nil {
			t.Errorf("refresh with %d %q succeeded", tc.status, tc.body)
		}
		data, _ := os.ReadFile(filepath.Join(dir, "models.json"))
		if string(data) != sample {
			t.Error("a failed refresh replaced the cache")
		}
	}
}

func TestRefreshOffline(t *testing.T) {
	// A closed port: the fetch fails at once, quietly.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	s := NewSource(Options{CacheDir: t.TempDir(), URL: url, Timeout: 5 * time.Second})
	select {
	case err := <-s.RefreshInBackground(context.Background()):
		if err == nil {
			t.Error("offline refresh succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("offline refresh hung")
	}
	if c, err := s.Catalog(); err != nil || !has(c, "openai") {
		t.Errorf("offline catalog: %v", err)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	env := map[string]string{"CODELOOP_MODELS_URL": "http://x", "OPENCODE_DISABLE_MODELS_FETCH": "1"}
	o := OptionsFromEnv(func(k string) string { return env[k] }, "/c")
	if o.URL != "http://x" || !o.Disabled || o.CacheDir != "/c" {
		t.Errorf("options = %+v", o)
	}
}

func has(c *Catalog, id string) bool {
	_, ok := c.Provider(id)
	return ok
}

// BenchmarkEmbedded is the start-up cost: split the catalog and decode one
// provider with its models.
func BenchmarkEmbedded(b *testing.B) {
	for b.Loop() {
		c, err := Embedded()
		if err != nil {
			b.Fatal(err)
		}
		p, _ := c.Provider("anthropic")
		p.Models()
	}
}

// BenchmarkEmbeddedAll decodes everything.
func BenchmarkEmbeddedAll(b *testing.B) {
	for b.Loop() {
		c, _ := Embedded()
		for _, p := range c.Providers() {
			p.Models()
		}
	}
}

// BenchmarkEmbeddedHeaders is what the provider registry pays at start-up:
// every provider's header, and no models.
func BenchmarkEmbeddedHeaders(b *testing.B) {
	for b.Loop() {
		c, _ := Embedded()
		c.Providers()
	}
}
