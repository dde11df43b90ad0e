package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/anthropic"
	"github.com/codeloop/codeloop/internal/llm/auth"
	"github.com/codeloop/codeloop/internal/llm/catalog"
	"github.com/codeloop/codeloop/internal/llm/google"
	"github.com/codeloop/codeloop/internal/llm/openai"
	"github.com/codeloop/codeloop/internal/paths"
)

type setup struct {
	env    map[string]string
	cfg    *config.Config
	auth   string
	recent string
}

func newRegistry(t *testing.T, s setup) *Registry {
	t.Helper()
	dir := t.TempDir()
	dirs := paths.Dirs{Data: filepath.Join(dir, "data"), Cache: filepath.Join(dir, "cache"), State: filepath.Join(dir, "state"), Home: dir}
	if s.auth != "" {
		os.MkdirAll(dirs.Data, 0o700)
		os.WriteFile(dirs.Auth(), []byte(s.auth), 0o600)
	}
	if s.recent != "" {
		os.MkdirAll(dirs.State, 0o755)
		os.WriteFile(filepath.Join(dirs.State, "model.json"), []byte(s.recent), 0o644)
	}
	getenv := func(k string) string { return s.env[k] }
	return New(Options{
		Config:        s.cfg,
		Dirs:          dirs,
		Getenv:        getenv,
		Catalog:       catalog.NewSource(catalog.Options{Path: "testdata/catalog.json"}),
		Auth:          &auth.Store{Path: dirs.Auth()},
		NoLocalDetect: true,
	})
}

func ids(t *testing.T, r *Registry) []string {
	t.Helper()
	ps, err := r.Providers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.ID+":"+string(p.Source))
	}
	return out
}

func TestUsableProviders(t *testing.T) {
	tests := []struct {
		name string
		s    setup
		want []string
	}{
		{"nothing", setup{}, nil},
		{"env", setup{env: map[string]string{"OPENAI_API_KEY": "sk-1", "GEMINI_API_KEY": "g"}}, []string{"openai:env", "google:env"}},
		{"auth", setup{auth: `{"deepseek":{"type":"api","key":"k"}}`}, []string{"deepseek:auth"}},
		{"config", setup{cfg: &config.Config{Provider: map[string]config.Provider{"groq": {}}}}, []string{"groq:config"}},
		{"order", setup{env: map[string]string{"OPENAI_API_KEY": "a", "ANTHROPIC_API_KEY": "b"}, auth: `{"groq":{"type":"api","key":"k"}}`},
			[]string{"groq:auth", "anthropic:env", "openai:env"}},
		{"disabled", setup{env: map[string]string{"OPENAI_API_KEY": "a", "ANTHROPIC_API_KEY": "b"},
			cfg: &config.Config{DisabledProviders: []string{"openai"}}}, []string{"anthropic:env"}},
		{"enabled list", setup{env: map[string]string{"OPENAI_API_KEY": "a", "ANTHROPIC_API_KEY": "b"},
			cfg: &config.Config{EnabledProviders: []string{"openai"}}}, []string{"openai:env"}},
		{"custom", setup{cfg: &config.Config{Provider: map[string]config.Provider{"mine": {Options: config.ProviderOptions{BaseURL: "http://x"}}}}}, []string{"mine:config"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(t, newRegistry(t, tt.s)); !slices.Equal(got, tt.want) {
				t.Errorf("providers = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestModelFiltering(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "k"}
	keys := func(r *Registry) []string {
		p, ok := r.Provider(context.Background(), "anthropic")
		if !ok {
			t.Fatal("anthropic not usable")
		}
		var out []string
		for _, m := range p.Models() {
			out = append(out, m.Key)
		}
		return out
	}
	got := keys(newRegistry(t, setup{env: env}))
	if slices.Contains(got, "claude-2") || slices.Contains(got, "claude-next") || !slices.Contains(got, "claude-sonnet-4-5") {
		t.Errorf("deprecated or alpha models kept: %v", got)
	}
	env2 := map[string]string{"ANTHROPIC_API_KEY": "k", "CODELOOP_ENABLE_EXPERIMENTAL_MODELS": "1"}
	if got := keys(newRegistry(t, setup{env: env2})); !slices.Contains(got, "claude-next") {
		t.Errorf("alpha model hidden with experimental models on: %v", got)
	}
	cfg := &config.Config{Provider: map[string]config.Provider{"anthropic": {
		Whitelist: []string{"claude-sonnet-4-5", "claude-haiku-4-5"}, Blacklist: []string{"claude-haiku-4-5"},
	}}}
	if got := keys(newRegistry(t, setup{env: env, cfg: cfg})); !slices.Equal(got, []string{"claude-sonnet-4-5"}) {
		t.Errorf("whitelist/blacklist: %v", got)
	}
}

func TestConfigModelOverrides(t *testing.T) {
	limit := &config.Limit{Context: 1000, Output: 100}
	cfg := &config.Config{Provider: map[string]config.Provider{"anthropic": {
		Options: config.ProviderOptions{APIKey: "cfg-key"},
		Models: map[string]config.ProviderModel{
			"claude-sonnet-4-5": {Name: "Renamed", Limit: limit},
			"fast":              {ID: "claude-haiku-4-5"},
		},
	}}}
	r := newRegistry(t, setup{cfg: cfg, env: map[string]string{"ANTHROPIC_API_KEY": "env-key"}})
	p, m, err := r.Lookup(context.Background(), "anthropic/claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "Renamed" || m.Limit.Context != 1000 || m.Cost.Input != 3 {
		t.Errorf("override = %+v", m.Model)
	}
	if p.key() != "cfg-key" || p.Source != SourceConfig {
		t.Errorf("key from %s, want the config's", p.Source)
	}
	_, fast, err := r.Lookup(context.Background(), "anthropic/fast")
	if err != nil {
		t.Fatal(err)
	}
	if fast.ID != "claude-haiku-4-5" || fast.Key != "fast" || fast.Cost.Input != 1 {
		t.Errorf("aliased model = %+v", fast)
	}
}

func TestAdapters(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o", "GEMINI_API_KEY": "g", "DEEPSEEK_API_KEY": "d",
		"GROQ_API_KEY": "q", "AZURE_RESOURCE_NAME": "res", "AZURE_API_KEY": "z", "AWS_REGION": "us-east-1", "GOOGLE_VERTEX_PROJECT": "p"}
	r := newRegistry(t, setup{env: env})
	tests := []struct {
		model string
		check func(llm.Provider) bool
	}{
		{"anthropic/claude-sonnet-4-5", func(p llm.Provider) bool { _, ok := p.(*anthropic.Provider); return ok }},
		{"openai/gpt-5", func(p llm.Provider) bool { _, ok := p.(*openai.Responses); return ok }},
		{"azure/gpt-5", func(p llm.Provider) bool { _, ok := p.(*openai.Responses); return ok }},
		{"google/gemini-2.5-pro", func(p llm.Provider) bool { _, ok := p.(*google.Provider); return ok }},
		{"deepseek/deepseek-reasoner", func(p llm.Provider) bool { _, ok := p.(*openai.Chat); return ok }},
		{"groq/qwen3-32b", func(p llm.Provider) bool { _, ok := p.(*openai.Chat); return ok }},
		{"amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", func(p llm.Provider) bool { _, ok := p.(*anthropic.Provider); return ok }},
		{"google-vertex-anthropic/claude-sonnet-4-5@20250929", func(p llm.Provider) bool { _, ok := p.(*anthropic.Provider); return ok }},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			p, m, err := r.Resolve(context.Background(), tt.model)
			if err != nil {
				t.Fatal(err)
			}
			h, ok := p.(*hinted)
			if !ok || !tt.check(h.Provider) {
				t.Errorf("adapter %T", p)
			}
			if pid, _ := SplitModel(tt.model); p.ID() != pid || m.ProviderID != pid {
				t.Errorf("ids %q %q", p.ID(), m.ProviderID)
			}
			again, _, _ := r.Resolve(context.Background(), tt.model)
			if again != p {
				t.Error("adapter not reused")
			}
		})
	}
	if _, _, err := r.Resolve(context.Background(), "amazon-bedrock/meta.llama3-70b-instruct-v1:0"); err == nil {
		t.Error("a non-Claude Bedrock model resolved")
	}
	if _, _, err := newRegistry(t, setup{env: map[string]string{"AZURE_API_KEY": "z"}}).Resolve(context.Background(), "azure/gpt-5"); err == nil ||
		!strings.Contains(err.Error(), "AZURE_RESOURCE_NAME") {
		t.Errorf("azure without a resource: %v", err)
	}
}

func TestResolveErrors(t *testing.T) {
	r := newRegistry(t, setup{env: map[string]string{"ANTHROPIC_API_KEY": "k"}})
	for _, tt := range []struct{ in, want string }{
		{"anthropic", "want provider/model"},
		{"openai/gpt-5", "OPENAI_API_KEY"},
		{"anthropic/claude-sonnet", "anthropic/claude-sonnet-4-5"},
		{"nowhere/x", "unknown provider"},
	} {
		_, _, err := r.Resolve(context.Background(), tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%q) = %v, want an error mentioning %q", tt.in, err, tt.want)
		}
	}
}

func TestDefaultAndSmall(t *testing.T) {
	ctx := context.Background()
	both := map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}
	tests := []struct {
		name        string
		s           setup
		def, smallO string
	}{
		{"priority", setup{env: both}, "anthropic/claude-sonnet-4-5", "openai/gpt-5-nano"},
		{"config", setup{env: both, cfg: &config.Config{Model: "openai/gpt-4o", SmallModel: "anthropic/claude-haiku-4-5"}},
			"openai/gpt-4o", "anthropic/claude-haiku-4-5"},
		{"recent", setup{env: both, recent: `{"recent":[{"providerID":"google","modelID":"gemini-2.5-pro"},{"providerID":"openai","modelID":"gpt-5"}]}`},
			"openai/gpt-5", "openai/gpt-5-nano"},
		{"only openai", setup{env: map[string]string{"OPENAI_API_KEY": "o"}}, "openai/gpt-5", "openai/gpt-5-nano"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistry(t, tt.s)
			def, err := r.Default(ctx)
			if err != nil || def != tt.def {
				t.Errorf("Default = %q, %v; want %q", def, err, tt.def)
			}
			small, err := r.Small(ctx, "openai")
			if err != nil || small != tt.smallO {
				t.Errorf("Small = %q, %v; want %q", small, err, tt.smallO)
			}
		})
	}
	if _, err := newRegistry(t, setup{}).Default(ctx); err == nil {
		t.Error("a default with nothing usable")
	}
	if _, err := newRegistry(t, setup{env: both, cfg: &config.Config{Model: "openai/nope"}}).Default(ctx); err == nil {
		t.Error("a configured model that does not exist was accepted")
	}
}

func TestUseRecordsRecent(t *testing.T) {
	r := newRegistry(t, setup{env: map[string]string{"OPENAI_API_KEY": "o"},
		recent: `{"recent":[{"providerID":"openai","modelID":"gpt-4o"}],"favorite":[{"providerID":"x","modelID":"y"}]}`})
	for _, m := range []string{"openai/gpt-5", "openai/gpt-4o", "openai/gpt-5-nano"} {
		if err := r.Use(m); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.Recent(); !slices.Equal(got, []string{"openai/gpt-5-nano", "openai/gpt-4o", "openai/gpt-5"}) {
		t.Errorf("recent = %v", got)
	}
	data, _ := os.ReadFile(r.recentFile())
	if !strings.Contains(string(data), `"favorite"`) {
		t.Error("other keys of model.json were lost")
	}
	if def, _ := r.Default(context.Background()); def != "openai/gpt-5-nano" {
		t.Errorf("default = %q, want the most recent", def)
	}
}

func TestPrintingHidesKeys(t *testing.T) {
	const key = "sk-very-secret-0123456789"
	env := map[string]string{"ANTHROPIC_API_KEY": key, "GEMINI_API_KEY": key, "DEEPSEEK_API_KEY": key, "OPENAI_API_KEY": key}
	r := newRegistry(t, setup{env: env})
	for _, model := range []string{"anthropic/claude-sonnet-4-5", "google/gemini-2.5-pro", "deepseek/deepseek-reasoner", "openai/gpt-5"} {
		p, _, err := r.Resolve(context.Background(), model)
		if err != nil {
			t.Fatal(err)
		}
		info, m, _ := r.Lookup(context.Background(), model)
		for _, s := range []string{fmt.Sprintf("%+v", p), fmt.Sprintf("%#v", p), fmt.Sprintf("%+v", info), fmt.Sprintf("%+v", m)} {
			if strings.Contains(s, key) {
				t.Errorf("%s: printing shows the key: %s", model, s)
			}
		}
	}
}
