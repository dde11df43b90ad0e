package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/auth"
	"github.com/codeloop/codeloop/internal/llm/catalog"
)

const compatibleNPM = "@ai-sdk/openai-compatible"

// build works out the usable providers.
func (r *Registry) build(ctx context.Context) (map[string]*Info, error) {
	cfg := r.opts.Config
	cat, err := r.opts.Catalog.Catalog()
	if err != nil {
		return nil, fmt.Errorf("model catalog: %w", err)
	}
	creds, err := r.opts.Auth.All()
	if err != nil {
		r.opts.Log.Warn("ignoring credentials", "err", err)
		creds = nil
	}
	ids := cat.ProviderIDs()
	for id := range cfg.Provider {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	out := map[string]*Info{}
	for _, id := range ids {
		if !r.enabled(id) {
			continue
		}
		cp, inCat := cat.Provider(id)
		pc, inCfg := cfg.Provider[id]
		if !inCat && !inCfg {
			continue
		}
		info := r.provider(id, cp, pc, inCfg, creds)
		if info == nil {
			continue
		}
		out[id] = info
	}
	for _, l := range r.localProviders(ctx) {
		if _, taken := out[l.ID]; !taken && r.enabled(l.ID) {
			out[l.ID] = l
		}
	}
	return out, nil
}

func (r *Registry) enabled(id string) bool {
	cfg := r.opts.Config
	if slices.Contains(cfg.DisabledProviders, id) {
		return false
	}
	return len(cfg.EnabledProviders) == 0 || slices.Contains(cfg.EnabledProviders, id)
}

// provider builds one provider's entry, or nil when it is not usable.
func (r *Registry) provider(id string, cp *catalog.Provider, pc config.Provider, inCfg bool, creds map[string]auth.Info) *Info {
	info := &Info{ID: id, Name: id, NPM: compatibleNPM, cred: &credential{options: pc.Options, env: map[string]string{}}}
	if cp != nil {
		info.Name, info.NPM, info.BaseURL, info.Env = cp.Name, cp.NPM, cp.API, cp.Env
	}
	if pc.Name != "" {
		info.Name = pc.Name
	}
	if pc.NPM != "" {
		info.NPM = pc.NPM
	}
	if pc.API != "" {
		info.BaseURL = pc.API
	}
	if pc.Options.BaseURL != "" {
		info.BaseURL = pc.Options.BaseURL
	}
	if len(pc.Env) > 0 {
		info.Env = pc.Env
	}
	for _, e := range info.Env {
		if v := r.opts.Getenv(e); v != "" {
			info.cred.env[e] = v
		}
	}
	switch c, ok := creds[id]; {
	case pc.Options.APIKey != "":
		info.cred.value, info.Source, info.cred.from = pc.Options.APIKey, SourceConfig, fromConfig
	case ok && c.Secret() != "":
		info.cred.value, info.Source, info.cred.from = c.Secret(), SourceAuth, fromAuth
	default:
		info.cred.from, info.cred.value = envKey(info.Env, info.cred.env)
		if len(info.cred.env) > 0 {
			info.Source = SourceEnv
		}
	}
	if inCfg {
		info.Source = SourceConfig
	}
	if info.Source == "" {
		return nil
	}
	info.models = r.models(id, cp, pc)
	return info
}

// envKey picks the credential among a provider's set variables: the first
// whose name says key or token, else the first set one. It returns the
// variable's name and value.
func envKey(names []string, vals map[string]string) (name, value string) {
	for _, n := range names {
		u := strings.ToUpper(n)
		if v := vals[n]; v != "" && (strings.Contains(u, "KEY") || strings.Contains(u, "TOKEN")) {
			return n, v
		}
	}
	for _, n := range names {
		if v := vals[n]; v != "" && !strings.Contains(strings.ToUpper(n), "REGION") &&
			!strings.Contains(strings.ToUpper(n), "RESOURCE") && !strings.Contains(strings.ToUpper(n), "PROJECT") &&
			!strings.Contains(strings.ToUpper(n), "LOCATION") {
			return n, v
		}
	}
	return "", ""
}

// models merges the catalog's models with the config's, then filters them.
func (r *Registry) models(id string, cp *catalog.Provider, pc config.Provider) map[string]*Model {
	experimental := r.envTrue("CODELOOP_ENABLE_EXPERIMENTAL_MODELS", "OPENCODE_ENABLE_EXPERIMENTAL_MODELS")
	out := map[string]*Model{}
	if cp != nil {
		for mid, cm := range cp.Models() {
			if cm.Status == "deprecated" || (cm.Status == "alpha" && !experimental) {
				continue
			}
			m := fromCatalog(id, cm)
			m.Key = mid
			out[mid] = m
		}
	}
	for key, mc := range pc.Models {
		m, ok := out[key]
		if !ok {
			m = &Model{Model: llm.Model{ID: key, ProviderID: id, Name: key, ToolCall: true, Temperature: true,
				Input: []string{"text"}, Output: []string{"text"}}}
			if mc.ID != "" {
				// A config entry may name the API's model id apart from its key.
				if cm, ok := catalogModel(cp, mc.ID); ok {
					m = fromCatalog(id, cm)
				}
			}
		}
		overlay(m, key, mc)
		m.Key = key
		out[key] = m
	}
	for mid := range out {
		if len(pc.Whitelist) > 0 && !slices.Contains(pc.Whitelist, mid) {
			delete(out, mid)
		}
		if slices.Contains(pc.Blacklist, mid) {
			delete(out, mid)
		}
	}
	return out
}

func catalogModel(cp *catalog.Provider, id string) (*catalog.Model, bool) {
	if cp == nil {
		return nil, false
	}
	return cp.Model(id)
}

func fromCatalog(providerID string, cm *catalog.Model) *Model {
	m := &Model{Model: cm.LLM(providerID), reasoningOptions: cm.ReasoningOptions}
	if cm.Provider != nil {
		m.npm, m.api, m.shape = cm.Provider.NPM, cm.Provider.API, cm.Provider.Shape
	}
	if cm.Interleaved != nil {
		m.interleavedField = cm.Interleaved.Field
	}
	return m
}

// overlay applies a config model entry to a model.
func overlay(m *Model, key string, mc config.ProviderModel) {
	m.ID = key
	if mc.ID != "" {
		m.ID = mc.ID // the id the API knows
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&m.Name, mc.Name)
	set(&m.Family, mc.Family)
	set(&m.ReleaseDate, mc.ReleaseDate)
	set(&m.Status, mc.Status)
	flag := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	flag(&m.Attachment, mc.Attachment)
	flag(&m.Reasoning, mc.Reasoning)
	flag(&m.Temperature, mc.Temperature)
	flag(&m.ToolCall, mc.ToolCall)
	if mc.Interleaved != nil {
		m.interleavedField = mc.Interleaved.Field
	}
	if l := mc.Limit; l != nil {
		m.Limit = llm.Limit{Context: int64(l.Context), Input: int64(l.Input), Output: int64(l.Output)}
	}
	if c := mc.Cost; c != nil {
		m.Cost = configCost(c)
	}
	if mo := mc.Modalities; mo != nil {
		if len(mo.Input) > 0 {
			m.Input = mo.Input
		}
		if len(mo.Output) > 0 {
			m.Output = mo.Output
		}
	}
	if p := mc.Provider; p != nil {
		set(&m.npm, p.NPM)
		set(&m.api, p.API)
	}
	if len(mc.Headers) > 0 {
		m.headers = &headerSet{maps.Clone(mc.Headers)}
	}
	if len(mc.Options) > 0 {
		m.options = maps.Clone(mc.Options)
	}
	if len(mc.Variants) > 0 {
		m.variants = maps.Clone(mc.Variants)
	}
}

func configCost(c *config.Cost) llm.Cost {
	out := llm.Cost{Input: c.Input, Output: c.Output, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite}
	if c.ContextOver200K != nil {
		o := configCost(c.ContextOver200K)
		out.Over200K = &o
	}
	return out
}
