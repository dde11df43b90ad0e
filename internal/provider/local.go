package provider

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
)

// localBudget bounds the whole local detection, model details included: a
// server on localhost answers in milliseconds, and a closed port fails at
// once.
const localBudget = 300 * time.Millisecond

// localModel is a model a local server lists, with its context length
// when the server says it (0 otherwise).
type localModel struct {
	id      string
	context int64
}

// localProbe is one run of the local detection, started once and shared
// by every build of the registry.
type localProbe struct {
	once  sync.Once
	done  chan struct{}
	found []*Info
}

// DetectLocal starts looking for local model servers (Ollama, LM Studio
// or another OpenAI-compatible server on its usual port) in the
// background, so that the first question to the registry does not wait
// for them. It returns at once; the probe ends within 300 ms.
func (r *Registry) DetectLocal(ctx context.Context) {
	if r.localOff() {
		return
	}
	r.startLocal(ctx)
}

func (r *Registry) localOff() bool {
	return r.opts.NoLocalDetect || r.envTrue("CODELOOP_DISABLE_LOCAL_MODELS", "OPENCODE_DISABLE_LOCAL_MODELS")
}

func (r *Registry) startLocal(ctx context.Context) *localProbe {
	p := r.local
	p.once.Do(func() {
		// The probe is shared by every caller: the first one's ctx ending
		// does not cut it short; localBudget ends it.
		ctx := context.WithoutCancel(ctx)
		go func() {
			defer close(p.done)
			p.found = r.detectLocal(ctx)
		}()
	})
	return p
}

// localProviders waits for the local detection (started now if it was
// not) and returns what it found.
func (r *Registry) localProviders(ctx context.Context) []*Info {
	if r.localOff() {
		return nil
	}
	p := r.startLocal(ctx)
	select {
	case <-p.done:
		return p.found
	case <-ctx.Done():
		return nil
	}
}

// ollamaURL and lmstudioURL are where the local servers are probed.
func (r *Registry) ollamaURL() string {
	if r.opts.OllamaURL != "" {
		return r.opts.OllamaURL
	}
	if h := r.opts.Getenv("OLLAMA_HOST"); h != "" {
		if !strings.Contains(h, "://") {
			h = "http://" + h
		}
		return strings.TrimSuffix(h, "/")
	}
	return "http://127.0.0.1:11434"
}

func (r *Registry) lmstudioURL() string {
	if r.opts.LMStudioURL != "" {
		return r.opts.LMStudioURL
	}
	return "http://127.0.0.1:1234"
}

// detectLocal probes Ollama and LM Studio, in parallel and within
// localBudget, and returns the ones that answer with at least one model.
func (r *Registry) detectLocal(ctx context.Context) []*Info {
	ctx, cancel := context.WithTimeout(ctx, localBudget)
	defer cancel()
	ollama, lmstudio := r.ollamaURL(), r.lmstudioURL()
	var wg sync.WaitGroup
	var ollamaModels, lmModels []localModel
	wg.Go(func() { ollamaModels = r.probeOllama(ctx, ollama) })
	wg.Go(func() { lmModels = r.probeLMStudio(ctx, lmstudio) })
	wg.Wait()

	var out []*Info
	if len(ollamaModels) > 0 {
		out = append(out, localInfo("ollama", "Ollama (local)", ollama+"/v1", ollamaModels))
	}
	if len(lmModels) > 0 {
		name := "LM Studio (local)"
		if cat, err := r.opts.Catalog.Catalog(); err == nil {
			if cp, ok := cat.Provider("lmstudio"); ok {
				name = cp.Name + " (local)"
			}
		}
		out = append(out, localInfo("lmstudio", name, lmstudio+"/v1", lmModels))
	}
	for _, l := range out {
		r.opts.Log.Info("found a local model server", "provider", l.ID, "url", l.BaseURL, "models", len(l.models))
	}
	return out
}

func localInfo(id, name, base string, models []localModel) *Info {
	info := &Info{ID: id, Name: name, NPM: compatibleNPM, BaseURL: base, Source: SourceLocal,
		models: map[string]*Model{}, cred: &credential{env: map[string]string{}}}
	for _, m := range models {
		info.models[m.id] = &Model{Key: m.id, Model: llm.Model{ID: m.id, ProviderID: id, Name: m.id, ToolCall: true,
			Temperature: true, Input: []string{"text"}, Output: []string{"text"}, Limit: llm.Limit{Context: m.context}}}
	}
	return info
}

// probeOllama lists Ollama's models from /api/tags, with each model's
// context length from /api/show, falling back to the OpenAI-style
// /v1/models.
func (r *Registry) probeOllama(ctx context.Context, base string) []localModel {
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if !r.getJSON(ctx, base+"/api/tags", &tags) {
		return r.probeOpenAI(ctx, base+"/v1/models")
	}
	var out []localModel
	for _, m := range tags.Models {
		if n := cmp.Or(m.Name, m.Model); n != "" {
			out = append(out, localModel{id: n})
		}
	}
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() { out[i].context = r.ollamaContext(ctx, base, out[i].id) })
	}
	wg.Wait()
	return out
}

// ollamaContext is the context length Ollama runs a model with: num_ctx
// of its parameters when set, else the model's own context length
// (<architecture>.context_length of its model_info); 0 when unknown.
func (r *Registry) ollamaContext(ctx context.Context, base, model string) int64 {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	body, _ := json.Marshal(map[string]string{"model": model})
	if !r.doJSON(ctx, http.MethodPost, base+"/api/show", body, &show) {
		return 0
	}
	for _, line := range strings.Split(show.Parameters, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	if arch, ok := show.ModelInfo["general.architecture"].(string); ok {
		if n, ok := show.ModelInfo[arch+".context_length"].(float64); ok && n > 0 {
			return int64(n)
		}
	}
	for k, v := range show.ModelInfo {
		if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") && n > 0 {
			return int64(n)
		}
	}
	return 0
}

// probeLMStudio lists the models of LM Studio or another OpenAI-compatible
// server: /v1/models, with context lengths from LM Studio's /api/v0/models
// when it answers.
func (r *Registry) probeLMStudio(ctx context.Context, base string) []localModel {
	var wg sync.WaitGroup
	var models []localModel
	var rest struct {
		Data []lmStudioModel `json:"data"`
	}
	var restOK bool
	wg.Go(func() { models = r.probeOpenAI(ctx, base+"/v1/models") })
	wg.Go(func() { restOK = r.getJSON(ctx, base+"/api/v0/models", &rest) })
	wg.Wait()
	if !restOK {
		return models
	}
	for i, m := range models {
		j := slices.IndexFunc(rest.Data, func(d lmStudioModel) bool { return d.ID == m.id })
		if j < 0 {
			continue
		}
		if d := rest.Data[j]; d.Type == "embeddings" {
			models[i].id = ""
		} else if m.context == 0 {
			models[i].context = cmp.Or(d.LoadedContextLength, d.MaxContextLength)
		}
	}
	return slices.DeleteFunc(models, func(m localModel) bool { return m.id == "" })
}

// lmStudioModel is a model of LM Studio's /api/v0/models.
type lmStudioModel struct {
	ID                  string `json:"id"`
	Type                string `json:"type"`
	MaxContextLength    int64  `json:"max_context_length"`
	LoadedContextLength int64  `json:"loaded_context_length"`
}

// probeOpenAI lists models from an OpenAI-style /v1/models, with the
// context length the fields some servers add say (vLLM's max_model_len,
// llama.cpp's meta.n_ctx_train, context_length).
func (r *Registry) probeOpenAI(ctx context.Context, url string) []localModel {
	var list struct {
		Data []struct {
			ID               string `json:"id"`
			ContextLength    int64  `json:"context_length"`
			MaxContextLength int64  `json:"max_context_length"`
			MaxModelLen      int64  `json:"max_model_len"`
			Meta             struct {
				NCtx      int64 `json:"n_ctx"`
				NCtxTrain int64 `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if !r.getJSON(ctx, url, &list) {
		return nil
	}
	var out []localModel
	for _, m := range list.Data {
		if m.ID != "" && !strings.Contains(m.ID, "embed") {
			out = append(out, localModel{id: m.ID,
				context: cmp.Or(m.ContextLength, m.MaxContextLength, m.MaxModelLen, m.Meta.NCtx, m.Meta.NCtxTrain)})
		}
	}
	return out
}

func (r *Registry) getJSON(ctx context.Context, url string, v any) bool {
	return r.doJSON(ctx, http.MethodGet, url, nil, v)
}

func (r *Registry) doJSON(ctx context.Context, method, url string, body []byte, v any) bool {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
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
