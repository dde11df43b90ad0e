package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/anthropic"
	"github.com/codeloop/codeloop/internal/llm/openai"
	"github.com/codeloop/codeloop/internal/message"
)

// models resolves "provider/model" from the config's provider section and
// the well-known providers reachable with an API key in the environment or
// auth.json. It builds each provider once.
type models struct {
	cfg      *config.Config
	getenv   func(string) string
	authFile string

	mu        sync.Mutex
	providers map[string]llm.Provider
	auth      map[string]string // provider id → API key from auth.json
}

func newModels(cfg *config.Config, getenv func(string) string, authFile string) *models {
	return &models{cfg: cfg, getenv: getenv, authFile: authFile, providers: map[string]llm.Provider{}}
}

// knownProvider is a provider usable without a config entry: its package,
// the variable holding its key and its default model.
type knownProvider struct{ npm, env, model string }

// wellKnownProvider returns the provider id's entry, if it is one.
func wellKnownProvider(id string) (knownProvider, bool) {
	switch id {
	case "anthropic":
		return knownProvider{"@ai-sdk/anthropic", "ANTHROPIC_API_KEY", "claude-sonnet-4-5"}, true
	case "openai":
		return knownProvider{"@ai-sdk/openai", "OPENAI_API_KEY", "gpt-5"}, true
	}
	return knownProvider{}, false
}

func (m *models) npm(providerID string) string {
	if p, ok := m.cfg.Provider[providerID]; ok && p.NPM != "" {
		return p.NPM
	}
	if w, ok := wellKnownProvider(providerID); ok {
		return w.npm
	}
	return "@ai-sdk/openai-compatible"
}

// mediaInResults reports whether the provider accepts images in tool
// results (Anthropic and OpenAI's Responses API do; Chat Completions does
// not).
func (m *models) mediaInResults(providerID string) bool {
	switch m.npm(providerID) {
	case "@ai-sdk/anthropic", "@ai-sdk/openai":
		return true
	}
	return false
}

func (m *models) apiKey(providerID string) string {
	p := m.cfg.Provider[providerID]
	if p.Options.APIKey != "" {
		return p.Options.APIKey
	}
	envs := slices.Clone(p.Env)
	if w, ok := wellKnownProvider(providerID); ok {
		envs = append(envs, w.env)
	}
	for _, e := range envs {
		if v := m.getenv(e); v != "" {
			return v
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.auth == nil {
		m.auth = map[string]string{}
		if data, err := os.ReadFile(m.authFile); err == nil {
			var entries map[string]struct {
				Type string `json:"type"`
				Key  string `json:"key"`
			}
			if json.Unmarshal(data, &entries) == nil {
				for id, e := range entries {
					if e.Type == "api" {
						m.auth[strings.TrimSuffix(id, "/")] = e.Key
					}
				}
			}
		}
	}
	return m.auth[providerID]
}

func (m *models) provider(providerID string) (llm.Provider, error) {
	m.mu.Lock()
	p, ok := m.providers[providerID]
	m.mu.Unlock()
	if ok {
		return p, nil
	}
	pc, configured := m.cfg.Provider[providerID]
	if _, known := wellKnownProvider(providerID); !configured && !known {
		return nil, fmt.Errorf("provider %q is not configured: add it to the \"provider\" section of opencode.json", providerID)
	}
	key := m.apiKey(providerID)
	base := pc.Options.BaseURL
	switch m.npm(providerID) {
	case "@ai-sdk/anthropic":
		p = anthropic.New(anthropic.Config{ID: providerID, APIKey: key, BaseURL: base, Headers: pc.Options.Headers})
	case "@ai-sdk/openai":
		p = openai.NewResponses(openai.Config{ID: providerID, APIKey: key, BaseURL: base, Headers: pc.Options.Headers})
	default:
		if base == "" {
			return nil, fmt.Errorf("provider %q has no options.baseURL", providerID)
		}
		p = openai.NewChat(openai.Config{ID: providerID, APIKey: key, BaseURL: base, Headers: pc.Options.Headers})
	}
	m.mu.Lock()
	m.providers[providerID] = p
	m.mu.Unlock()
	return p, nil
}

// Model returns the provider of ref and the model's description from the
// config (unknown limits stay zero).
func (m *models) Model(_ context.Context, ref message.ModelRef) (llm.Provider, llm.Model, error) {
	p, err := m.provider(ref.ProviderID)
	if err != nil {
		return nil, llm.Model{}, err
	}
	model := llm.Model{ID: ref.ModelID, ProviderID: ref.ProviderID, Name: ref.ModelID, ToolCall: true, Temperature: true}
	pc := m.cfg.Provider[ref.ProviderID]
	pm, ok := pc.Models[ref.ModelID]
	if !ok && len(pc.Models) > 0 && m.npm(ref.ProviderID) == "@ai-sdk/openai-compatible" {
		return nil, llm.Model{}, fmt.Errorf("provider %q has no model %q", ref.ProviderID, ref.ModelID)
	}
	if ok {
		if pm.ID != "" {
			model.ID = pm.ID
		}
		if pm.Name != "" {
			model.Name = pm.Name
		}
		model.Family = pm.Family
		if pm.Limit != nil {
			model.Limit = llm.Limit{Context: int64(pm.Limit.Context), Input: int64(pm.Limit.Input), Output: int64(pm.Limit.Output)}
		}
		if pm.Cost != nil {
			model.Cost = llm.Cost{Input: pm.Cost.Input, Output: pm.Cost.Output, CacheRead: pm.Cost.CacheRead, CacheWrite: pm.Cost.CacheWrite}
		}
		if pm.ToolCall != nil {
			model.ToolCall = *pm.ToolCall
		}
		if pm.Temperature != nil {
			model.Temperature = *pm.Temperature
		}
		if pm.Reasoning != nil {
			model.Reasoning = *pm.Reasoning
		}
		if pm.Attachment != nil {
			model.Attachment = *pm.Attachment
		}
	}
	return p, model, nil
}

// Default is the config's model, else the only configured provider's first
// model, else a well-known provider with a key.
func (m *models) Default(context.Context) (message.ModelRef, error) {
	if ref, ok := ParseModel(m.cfg.Model); ok {
		return ref, nil
	}
	ids := make([]string, 0, len(m.cfg.Provider))
	for id, p := range m.cfg.Provider {
		if len(p.Models) > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		names := make([]string, 0, len(m.cfg.Provider[id].Models))
		for n := range m.cfg.Provider[id].Models {
			names = append(names, n)
		}
		slices.Sort(names)
		return message.ModelRef{ProviderID: id, ModelID: names[0]}, nil
	}
	for _, id := range []string{"anthropic", "openai"} {
		if m.apiKey(id) != "" {
			w, _ := wellKnownProvider(id)
			return message.ModelRef{ProviderID: id, ModelID: w.model}, nil
		}
	}
	return message.ModelRef{}, fmt.Errorf("no model is configured: pass --model provider/model or set \"model\" in opencode.json")
}

// Small is the config's small_model.
func (m *models) Small(context.Context, string) (message.ModelRef, bool) {
	return ParseModel(m.cfg.SmallModel)
}

// ParseModel splits "provider/model" at the first slash.
func ParseModel(s string) (message.ModelRef, bool) {
	p, id, ok := strings.Cut(s, "/")
	if !ok || p == "" || id == "" {
		return message.ModelRef{}, false
	}
	return message.ModelRef{ProviderID: p, ModelID: id}, true
}
