// Package provider is codeloop's provider registry: it decides which
// providers are usable, resolves "provider/model" strings to a streaming
// llm.Provider and a model description, picks the default and small
// models, and computes each request's parameter defaults.
//
// # Usable providers
//
// Providers come from the model catalog (models.dev) and the config's
// provider entries; an entry for an id the catalog lacks defines a custom
// provider (npm defaults to @ai-sdk/openai-compatible). A provider is
// usable when it is configured, when auth.json holds a credential for it,
// or when one of its environment variables (the catalog's env names, or
// the entry's env) is set. enabled_providers, when set, is an allow-list;
// disabled_providers always wins. Models with status deprecated are
// dropped, and alpha ones unless CODELOOP_ENABLE_EXPERIMENTAL_MODELS (or
// OPENCODE_ENABLE_EXPERIMENTAL_MODELS) is set; whitelist and blacklist
// filter a provider's models. The key is taken from the config
// (options.apiKey), else auth.json, else the environment.
//
// Local model servers are found without configuration: Ollama (/api/tags
// at OLLAMA_HOST, else localhost:11434) and LM Studio or another
// OpenAI-compatible server on localhost:1234 (/v1/models) are probed, all
// within 300 ms, and offered as the providers "ollama" and "lmstudio"
// after every configured one, with the context length the server gives
// (Ollama's /api/show: num_ctx when set, else the model's own; LM
// Studio's /api/v0/models; max_model_len, context_length or meta.n_ctx_train
// in /v1/models). Registry.DetectLocal starts the probe in the background
// at start-up; CODELOOP_DISABLE_LOCAL_MODELS turns it off. A configured
// provider of the same id wins.
//
// # Adapters
//
// The AI SDK package name (npm) picks the adapter: @ai-sdk/anthropic →
// Anthropic Messages; @ai-sdk/openai → OpenAI Responses; @ai-sdk/azure →
// Responses at https://<resource>.openai.azure.com/openai/v1 with the
// api-key header; @ai-sdk/google → Gemini; @ai-sdk/google-vertex → Gemini on
// Vertex AI; @ai-sdk/google-vertex/anthropic and @ai-sdk/amazon-bedrock →
// Anthropic through the SDK's Vertex and Bedrock options; every other
// package (openai-compatible, OpenRouter, Groq, xAI, Mistral, DeepSeek,
// Together, Cerebras, Fireworks, Deep Infra, ... and unknown ones) → Chat
// Completions at options.baseURL, else the catalog's api, else the
// package's known base URL. A model's own provider.npm / provider.api /
// provider.shape override its provider's.
//
// # Models
//
// "provider/model" splits at the first "/". The default model is the
// config's model, else the most recently used one (<state>/model.json),
// else the best model of the first usable provider (providers in the order
// config, auth.json, environment, local; then anthropic, openai, google,
// openrouter, then by id). "Best" means, among tool-calling models, the
// first of these patterns that matches: gpt-5, claude-sonnet-4,
// claude-opus-4, gemini-3-pro, gemini-2.5-pro; among its matches the
// newest release, then the shortest id. Without a match, the newest
// tool-calling model. The small model (titles, summaries) is small_model,
// else the provider's first match of claude-haiku-4-5, claude-haiku,
// gemini-3-flash, gemini-2.5-flash, gpt-5-nano, gpt-5-mini, gpt-4.1-mini,
// flash, haiku, mini, nano, small, else its cheapest priced model, else the
// default model.
//
// # Request parameters (Params)
//
// Temperature only when the model supports it: qwen 0.55; gemini, glm-4.6,
// glm-4.7, minimax-m2, kimi-k2-thinking and kimi-k2.5 1.0; other kimi-k2
// 0.6; otherwise left to the provider. top_p: qwen 1; gemini, minimax and
// kimi-k2.5 0.95. top_k: minimax-m2 40, gemini 64. maxOutputTokens =
// min(limit.output, 32000), or 32000 when unknown
// (CODELOOP_EXPERIMENTAL_OUTPUT_TOKEN_MAX changes the cap). OpenAI
// reasoning models get effort medium with summaries by default. A variant
// maps through the model's reasoning options: an effort name ("low",
// "high", ...) becomes that effort; for budget models low, medium, high and
// max become 4096, 8192, 16000 and 31999 thinking tokens (clamped to the
// model's range); "none" turns thinking off. A config variant's options are
// merged into the request body.
//
// The session loop, the CLI and the server import this package.
package provider

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/auth"
	"github.com/codeloop/codeloop/internal/llm/catalog"
	"github.com/codeloop/codeloop/internal/paths"
)

// Options are what a registry is built from.
type Options struct {
	Config  *config.Config // nil means no config
	Dirs    paths.Dirs
	Getenv  func(string) string // nil means os.Getenv
	Catalog *catalog.Source
	Auth    *auth.Store
	// HTTPClient carries every provider request; nil means a default
	// client. Per-provider timeouts wrap its transport.
	HTTPClient *http.Client
	// UserAgent is sent on every request.
	UserAgent string
	Log       *slog.Logger
	// NoLocalDetect turns the Ollama and LM Studio probes off (so does
	// CODELOOP_DISABLE_LOCAL_MODELS).
	NoLocalDetect bool
	// OllamaURL and LMStudioURL override where the local servers are
	// probed (tests); empty means the default ports.
	OllamaURL, LMStudioURL string
}

// Source says why a provider is usable.
type Source string

// The reasons a provider is usable.
const (
	SourceConfig Source = "config"
	SourceAuth   Source = "auth"
	SourceEnv    Source = "env"
	SourceLocal  Source = "local"
)

// Info is one usable provider.
type Info struct {
	ID      string
	Name    string
	NPM     string
	BaseURL string // empty: the package's default
	Env     []string
	Source  Source

	cred   *credential // behind a pointer: printing an Info shows no key
	models map[string]*Model
}

// HasKey reports whether a credential was found for the provider.
func (i *Info) HasKey() bool { return i.key() != "" }

// headerSet holds a model's configured request headers.
type headerSet struct{ h map[string]string }

// credential holds a provider's key, the environment variables of its that
// are set, and its configured options (which may hold a key too). from
// says where the key came from: fromConfig, fromAuth, or the name of the
// environment variable; "" when there is no key.
type credential struct {
	value   string
	from    string
	env     map[string]string
	options config.ProviderOptions
}

// Where a provider's key came from, when not from an environment variable.
const (
	fromConfig = "config"
	fromAuth   = "auth"
)

func (i *Info) key() string {
	if i.cred == nil {
		return ""
	}
	return i.cred.value
}

// Models returns the provider's models, sorted by id.
func (i *Info) Models() []*Model {
	out := make([]*Model, 0, len(i.models))
	for _, m := range i.models {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *Model) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// Model is a model of a usable provider: its description and what it takes
// to call it.
type Model struct {
	llm.Model
	// Key is the name in "provider/key"; Model.ID is the id the API knows,
	// which a config entry may set apart.
	Key string

	npm, api, shape  string // per-model overrides of the provider's
	interleavedField string
	headers          *headerSet // behind a pointer: headers may carry credentials
	options          map[string]any
	variants         map[string]map[string]any
	reasoningOptions []catalog.ReasoningOption
}

// Registry resolves models to providers. Build it with New; it loads
// lazily, on the first question, and is safe for concurrent use.
type Registry struct {
	opts Options

	// loaded is the providers built, nil until the first use and after
	// Reload; loadMu serialises building them.
	loaded atomic.Pointer[loadedProviders]
	loadMu sync.Mutex

	mu       sync.Mutex
	adapters map[string]llm.Provider // by provider/model

	local *localProbe

	trOnce sync.Once
	tr     *http.Transport // see transport
}

// New returns a registry; it reads nothing until asked.
func New(opts Options) *Registry {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Catalog == nil {
		opts.Catalog = catalog.NewSource(catalog.OptionsFromEnv(opts.Getenv, opts.Dirs.Cache))
	}
	if opts.Auth == nil {
		opts.Auth = &auth.Store{Path: opts.Dirs.Auth()}
	}
	if opts.Config == nil {
		opts.Config = &config.Config{}
	}
	return &Registry{opts: opts, adapters: map[string]llm.Provider{}, local: &localProbe{done: make(chan struct{})}}
}

// loadedProviders is one build of the usable providers.
type loadedProviders struct {
	byID map[string]*Info
	err  error
}

// load returns the usable providers by id, building them on first use.
func (r *Registry) load(ctx context.Context) (map[string]*Info, error) {
	if l := r.loaded.Load(); l != nil {
		return l.byID, l.err
	}
	r.loadMu.Lock()
	defer r.loadMu.Unlock()
	if l := r.loaded.Load(); l != nil {
		return l.byID, l.err
	}
	byID, err := r.build(ctx)
	r.loaded.Store(&loadedProviders{byID: byID, err: err})
	return byID, err
}

// SetKey stores an API key for a provider in auth.json, the store
// codeloop auth login writes, and reads the providers again, so the
// provider is usable from the next call on.
func (r *Registry) SetKey(providerID, key string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return errors.New("no key given")
	}
	if r.opts.Auth.Content != "" {
		return errors.New("credentials come from CODELOOP_AUTH_CONTENT; unset it to store a key")
	}
	if err := r.opts.Auth.Set(providerID, auth.Info{Type: "api", Key: key}); err != nil {
		return err
	}
	r.loadMu.Lock()
	r.loaded.Store(nil)
	r.loadMu.Unlock()
	r.mu.Lock()
	clear(r.adapters) // an adapter keeps the key it was built with
	r.mu.Unlock()
	return nil
}

// Providers returns the usable providers in preference order (see the
// package documentation).
func (r *Registry) Providers(ctx context.Context) ([]*Info, error) {
	providers, err := r.load(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Info, 0, len(providers))
	for _, p := range providers {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Info) int {
		if c := cmp.Compare(sourceRank(a.Source), sourceRank(b.Source)); c != 0 {
			return c
		}
		if c := cmp.Compare(providerRank(a.ID), providerRank(b.ID)); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Provider returns one usable provider.
func (r *Registry) Provider(ctx context.Context, id string) (*Info, bool) {
	providers, err := r.load(ctx)
	if err != nil {
		return nil, false
	}
	p, ok := providers[id]
	return p, ok
}

func sourceRank(s Source) int {
	return slices.Index([]Source{SourceConfig, SourceAuth, SourceEnv, SourceLocal}, s)
}

// preferred providers, best first, among providers of the same source.
var preferred = []string{"anthropic", "openai", "google", "openrouter"}

func providerRank(id string) int {
	if i := slices.Index(preferred, id); i >= 0 {
		return i
	}
	return len(preferred)
}

// SplitModel splits "provider/model" at the first "/".
func SplitModel(s string) (providerID, modelID string) {
	providerID, modelID, _ = strings.Cut(strings.TrimSpace(s), "/")
	return providerID, modelID
}

// envTrue reads a boolean environment switch.
func (r *Registry) envTrue(names ...string) bool {
	for _, n := range names {
		switch strings.ToLower(r.opts.Getenv(n)) {
		case "1", "true", "yes", "on":
			return true
		}
	}
	return false
}

// RefreshCatalog refreshes a stale cached model catalog in the background
// (see catalog.Source.RefreshInBackground); the new copy is used from the
// next registry on. The returned channel yields the result.
func (r *Registry) RefreshCatalog(ctx context.Context) <-chan error {
	return r.opts.Catalog.RefreshInBackground(ctx)
}
