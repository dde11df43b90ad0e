package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/catalog"
)

// localTimeout bounds each local probe: a server on localhost answers in
// milliseconds, and a closed port fails at once.
const localTimeout = 400 * time.Millisecond

// detectLocal probes Ollama and LM Studio, in parallel, and returns the
// ones that answer with at least one model.
func (r *Registry) detectLocal(ctx context.Context, cat *catalog.Catalog) []*Info {
	ollama := r.opts.OllamaURL
	if ollama == "" {
		ollama = "http://127.0.0.1:11434"
		if h := r.opts.Getenv("OLLAMA_HOST"); h != "" {
			if !strings.Contains(h, "://") {
				h = "http://" + h
			}
			ollama = strings.TrimSuffix(h, "/")
		}
	}
	lmstudio := r.opts.LMStudioURL
	if lmstudio == "" {
		lmstudio = "http://127.0.0.1:1234"
	}
	var wg sync.WaitGroup
	var ollamaModels, lmModels []string
	wg.Go(func() { ollamaModels = r.probeOllama(ctx, ollama) })
	wg.Go(func() { lmModels = r.probeOpenAI(ctx, lmstudio+"/v1/models") })
	wg.Wait()

	var out []*Info
	if len(ollamaModels) > 0 {
		out = append(out, localInfo("ollama", "Ollama (local)", ollama+"/v1", ollamaModels))
	}
	if len(lmModels) > 0 {
		name := "LM Studio (local)"
		if cp, ok := cat.Provider("lmstudio"); ok {
			name = cp.Name + " (local)"
		}
		out = append(out, localInfo("lmstudio", name, lmstudio+"/v1", lmModels))
	}
	for _, l := range out {
		r.opts.Log.Info("found a local model server", "provider", l.ID, "url", l.BaseURL, "models", len(l.models))
	}
	return out
}

func localInfo(id, name, base string, models []string) *Info {
	info := &Info{ID: id, Name: name, NPM: compatibleNPM, BaseURL: base, Source: SourceLocal,
		models: map[string]*Model{}, cred: &credential{env: map[string]string{}}}
	for _, m := range models {
		info.models[m] = &Model{Key: m, Model: llm.Model{ID: m, ProviderID: id, Name: m, ToolCall: true,
			Temperature: true, Input: []string{"text"}, Output: []string{"text"}}}
	}
	return info
}

// probeOllama lists Ollama's models from /api/tags, falling back to the
// OpenAI-style /v1/models.
func (r *Registry) probeOllama(ctx context.Context, base string) []string {
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if r.getJSON(ctx, base+"/api/tags", &tags) {
		var out []string
		for _, m := range tags.Models {
			if n := m.Name; n != "" {
				out = append(out, n)
			} else if m.Model != "" {
				out = append(out, m.Model)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return r.probeOpenAI(ctx, base+"/v1/models")
}

// probeOpenAI lists models from an OpenAI-style /v1/models.
func (r *Registry) probeOpenAI(ctx context.Context, url string) []string {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if !r.getJSON(ctx, url, &list) {
		return nil
	}
	var out []string
	for _, m := range list.Data {
		if m.ID != "" && !strings.Contains(m.ID, "embed") {
			out = append(out, m.ID)
		}
	}
	return out
}

func (r *Registry) getJSON(ctx context.Context, url string, v any) bool {
	ctx, cancel := context.WithTimeout(ctx, localTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	client := r.opts.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	return json.NewDecoder(resp.Body).Decode(v) == nil
}
