package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// NotFoundError says a model or provider could not be resolved; Hint is a
// user-facing suggestion.
type NotFoundError struct {
	Provider, Model string
	Hint            string
	Suggestions     []string
}

func (e *NotFoundError) Error() string {
	var s string
	if e.Model == "" {
		s = fmt.Sprintf("provider %q is not available", e.Provider)
	} else {
		s = fmt.Sprintf("model %q not found for provider %q", e.Model, e.Provider)
	}
	if len(e.Suggestions) > 0 {
		s += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Resolve returns the provider and model a "provider/model" string names.
func (r *Registry) Resolve(ctx context.Context, s string) (llm.Provider, llm.Model, error) {
	p, m, err := r.Lookup(ctx, s)
	if err != nil {
		return nil, llm.Model{}, err
	}
	key := p.ID + "/" + m.Key
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.adapters[key]; ok {
		return a, m.Model, nil
	}
	a, err := r.adapter(p, m)
	if err != nil {
		return nil, llm.Model{}, err
	}
	r.adapters[key] = a
	return a, m.Model, nil
}

// Lookup finds a usable provider and one of its models without building an
// adapter.
func (r *Registry) Lookup(ctx context.Context, s string) (*Info, *Model, error) {
	providers, err := r.load(ctx)
	if err != nil {
		return nil, nil, err
	}
	pid, mid := SplitModel(s)
	if pid == "" || mid == "" {
		return nil, nil, fmt.Errorf("model %q: want provider/model", s)
	}
	p, ok := providers[pid]
	if !ok {
		return nil, nil, &NotFoundError{Provider: pid, Hint: r.hint(pid)}
	}
	m, ok := p.models[mid]
	if !ok {
		return nil, nil, &NotFoundError{Provider: pid, Model: mid, Suggestions: suggest(p, mid)}
	}
	return p, m, nil
}

// hint says how to make a provider usable.
func (r *Registry) hint(pid string) string {
	if !r.enabled(pid) {
		return "it is disabled by enabled_providers or disabled_providers"
	}
	cat, err := r.opts.Catalog.Catalog()
	if err != nil {
		return ""
	}
	cp, ok := cat.Provider(pid)
	if !ok {
		return "unknown provider; define it under \"provider\" in the config"
	}
	if len(cp.Env) > 0 {
		return fmt.Sprintf("set %s or run: codeloop auth login %s", cp.Env[0], pid)
	}
	return "run: codeloop auth login " + pid
}

func suggest(p *Info, mid string) []string {
	var out []string
	low := strings.ToLower(mid)
	for _, m := range p.Models() {
		k := strings.ToLower(m.Key)
		if strings.Contains(k, low) || strings.Contains(low, k) {
			out = append(out, p.ID+"/"+m.Key)
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}

// bestPatterns rank a provider's models for the default; smallPatterns for
// the small model.
var (
	bestPatterns  = []string{"gpt-5", "claude-sonnet-4", "claude-opus-4", "gemini-3-pro", "gemini-2.5-pro"}
	smallPatterns = []string{"claude-haiku-4-5", "claude-haiku-4.5", "claude-haiku", "3-5-haiku", "gemini-3-flash",
		"gemini-2.5-flash", "gpt-5-nano", "gpt-5-mini", "gpt-4.1-mini", "flash", "haiku", "mini", "nano", "small"}
)

// Default returns the default model as "provider/model": the config's
// model, else the most recently used usable one, else the best model of the
// first usable provider.
func (r *Registry) Default(ctx context.Context) (string, error) {
	if m := r.opts.Config.Model; m != "" {
		if _, _, err := r.Lookup(ctx, m); err != nil {
			return "", fmt.Errorf("config model: %w", err)
		}
		return m, nil
	}
	providers, err := r.Providers(ctx)
	if err != nil {
		return "", err
	}
	for _, rec := range r.Recent() {
		if _, _, err := r.Lookup(ctx, rec); err == nil {
			return rec, nil
		}
	}
	for _, p := range providers {
		if m := best(p); m != nil {
			return p.ID + "/" + m.Key, nil
		}
	}
	return "", errors.New("no model available: set a provider's API key (for example ANTHROPIC_API_KEY), " +
		"run codeloop auth login, or start Ollama or LM Studio")
}

// best picks a provider's default model.
func best(p *Info) *Model {
	var tools []*Model
	for _, m := range p.Models() {
		if m.ToolCall || p.Source == SourceLocal {
			tools = append(tools, m)
		}
	}
	if len(tools) == 0 {
		return nil
	}
	if p.Source == SourceLocal {
		return tools[0]
	}
	for _, pat := range bestPatterns {
		var hits []*Model
		for _, m := range tools {
			if strings.Contains(m.Key, pat) {
				hits = append(hits, m)
			}
		}
		if len(hits) > 0 {
			return newest(hits)
		}
	}
	return newest(tools)
}

// newest orders by release date, newest first, then by shorter id (an
// alias over its dated snapshot).
func newest(ms []*Model) *Model {
	return slices.MinFunc(ms, func(a, b *Model) int {
		if c := cmp.Compare(b.ReleaseDate, a.ReleaseDate); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.Key), len(b.Key)); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}

// Small returns the model for titles and summaries as "provider/model":
// small_model, else a small model of providerID, else the cheapest priced
// model of providerID, else the default model.
func (r *Registry) Small(ctx context.Context, providerID string) (string, error) {
	if m := r.opts.Config.SmallModel; m != "" {
		if _, _, err := r.Lookup(ctx, m); err == nil {
			return m, nil
		}
	}
	if p, ok := r.Provider(ctx, providerID); ok && p.Source != SourceLocal {
		ms := p.Models()
		for _, pat := range smallPatterns {
			var hits []*Model
			for _, m := range ms {
				if strings.Contains(m.Key, pat) {
					hits = append(hits, m)
				}
			}
			if len(hits) > 0 {
				return p.ID + "/" + newest(hits).Key, nil
			}
		}
		var priced []*Model
		for _, m := range ms {
			if m.Cost.Input > 0 {
				priced = append(priced, m)
			}
		}
		if len(priced) > 0 {
			m := slices.MinFunc(priced, func(a, b *Model) int {
				return cmp.Compare(a.Cost.Input+a.Cost.Output, b.Cost.Input+b.Cost.Output)
			})
			return p.ID + "/" + m.Key, nil
		}
	}
	return r.Default(ctx)
}

// recentFile is <state>/model.json, OpenCode's shape: {"recent":
// [{"providerID","modelID"}], "favorite": [...], "variant": {...}}.
func (r *Registry) recentFile() string {
	if r.opts.Dirs.State == "" {
		return ""
	}
	return filepath.Join(r.opts.Dirs.State, "model.json")
}

type modelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

// Recent returns the recently used models, most recent first.
func (r *Registry) Recent() []string {
	p := r.recentFile()
	if p == "" {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var f struct {
		Recent []modelRef `json:"recent"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil
	}
	var out []string
	for _, m := range f.Recent {
		if m.ProviderID != "" && m.ModelID != "" {
			out = append(out, m.ProviderID+"/"+m.ModelID)
		}
	}
	return out
}

// maxRecent is how many recent models are kept.
const maxRecent = 10

// Use records model ("provider/model") as the most recently used, keeping
// the file's other keys.
func (r *Registry) Use(model string) error {
	p := r.recentFile()
	if p == "" {
		return errors.New("no state directory")
	}
	pid, mid := SplitModel(model)
	if pid == "" || mid == "" {
		return fmt.Errorf("model %q: want provider/model", model)
	}
	doc := map[string]json.RawMessage{}
	if data, err := os.ReadFile(p); err == nil {
		_ = json.Unmarshal(data, &doc)
	}
	var recent []modelRef
	if raw, ok := doc["recent"]; ok {
		_ = json.Unmarshal(raw, &recent)
	}
	recent = slices.DeleteFunc(recent, func(m modelRef) bool { return m.ProviderID == pid && m.ModelID == mid })
	recent = append([]modelRef{{pid, mid}}, recent...)
	if len(recent) > maxRecent {
		recent = recent[:maxRecent]
	}
	b, err := json.Marshal(recent)
	if err != nil {
		return err
	}
	doc["recent"] = b
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
