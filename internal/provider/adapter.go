package provider

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	gauth "cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/anthropic"
	"github.com/codeloop/codeloop/internal/llm/google"
	"github.com/codeloop/codeloop/internal/llm/openai"
)

// knownBaseURLs are the endpoints of AI SDK packages whose catalog entry
// has no api field, for the Chat Completions adapter.
var knownBaseURLs = map[string]string{
	"@ai-sdk/groq":                "https://api.groq.com/openai/v1",
	"@ai-sdk/xai":                 "https://api.x.ai/v1",
	"@ai-sdk/mistral":             "https://api.mistral.ai/v1",
	"@ai-sdk/deepseek":            "https://api.deepseek.com/v1",
	"@ai-sdk/togetherai":          "https://api.together.xyz/v1",
	"@ai-sdk/cerebras":            "https://api.cerebras.ai/v1",
	"@ai-sdk/fireworks":           "https://api.fireworks.ai/inference/v1",
	"@ai-sdk/deepinfra":           "https://api.deepinfra.com/v1/openai",
	"@ai-sdk/perplexity":          "https://api.perplexity.ai",
	"@ai-sdk/cohere":              "https://api.cohere.ai/compatibility/v1",
	"@ai-sdk/vercel":              "https://api.v0.dev/v1",
	"@ai-sdk/gateway":             "https://ai-gateway.vercel.sh/v1",
	"@openrouter/ai-sdk-provider": "https://openrouter.ai/api/v1",
}

// Adapter kinds.
const (
	kindAnthropic = "anthropic"
	kindResponses = "openai-responses"
	kindChat      = "openai-chat"
	kindGoogle    = "google"
	kindVertex    = "google-vertex"
	kindBedrock   = "anthropic-bedrock"
	kindVertexAnt = "anthropic-vertex"
)

// kind picks the adapter for an AI SDK package and an API shape.
func kind(npm, shape string) string {
	switch shape {
	case "responses":
		return kindResponses
	case "completions":
		return kindChat
	}
	switch npm {
	case "@ai-sdk/anthropic":
		return kindAnthropic
	case "@ai-sdk/openai", "@ai-sdk/azure", "@ai-sdk/amazon-bedrock/mantle":
		return kindResponses
	case "@ai-sdk/google":
		return kindGoogle
	case "@ai-sdk/google-vertex":
		return kindVertex
	case "@ai-sdk/google-vertex/anthropic":
		return kindVertexAnt
	case "@ai-sdk/amazon-bedrock":
		return kindBedrock
	}
	return kindChat
}

// adapterKind returns the kind of adapter that serves model m of
// provider p, and the AI SDK package that chose it.
func adapterKind(p *Info, m *Model) (k, npm string) {
	npm = p.NPM
	if m.npm != "" {
		npm = m.npm
	}
	k = kind(npm, m.shape)
	if npm == "@ai-sdk/azure" && truthy(p.cred.options.Extra["useCompletionUrls"]) {
		k = kindChat
	}
	return k, npm
}

// adapter builds the llm.Provider that serves model m of provider p. An
// authentication failure it reports says where the refused credential
// came from and how to replace it.
func (r *Registry) adapter(p *Info, m *Model) (llm.Provider, error) {
	a, err := r.newAdapter(p, m)
	if err != nil {
		return nil, err
	}
	k, _ := adapterKind(p, m)
	return &hinted{Provider: a, hint: authHint(p, k)}, nil
}

// newAdapter builds the adapter itself.
func (r *Registry) newAdapter(p *Info, m *Model) (llm.Provider, error) {
	k, npm := adapterKind(p, m)
	base := p.BaseURL
	if m.api != "" && p.cred.options.BaseURL == "" {
		base = m.api
	}
	base = r.expand(base)
	headers := map[string]string{}
	if r.opts.UserAgent != "" {
		headers["User-Agent"] = r.opts.UserAgent
	}
	maps.Copy(headers, p.cred.options.Headers)
	if m.headers != nil {
		maps.Copy(headers, m.headers.h)
	}
	client := r.client(p)
	switch k {
	case kindAnthropic:
		cfg := anthropic.Config{ID: p.ID, APIKey: p.key(), BaseURL: anthropicBase(base), Headers: headers, HTTPClient: client}
		if p.ID == "anthropic" {
			cfg.Beta = []string{"interleaved-thinking-2025-05-14"}
		}
		return anthropic.New(cfg), nil
	case kindGoogle:
		return google.New(google.Config{ID: p.ID, APIKey: p.key(), BaseURL: base, Headers: headers, HTTPClient: client}), nil
	case kindVertex:
		key := p.key()
		if p.Source == SourceEnv {
			key = "" // Vertex's variables name a project and credentials, not a key
		}
		return google.New(google.Config{ID: p.ID, APIKey: key, BaseURL: base, Headers: headers, HTTPClient: client,
			Vertex: true, Project: r.vertexProject(p), Location: r.vertexLocation(p)}), nil
	case kindBedrock, kindVertexAnt:
		return r.cloudAnthropic(k, p, m, base, headers, client)
	}
	cfg := openai.Config{ID: p.ID, APIKey: p.key(), BaseURL: base, Headers: headers, HTTPClient: client}
	switch {
	case npm == "@ai-sdk/azure":
		if err := r.azure(p, &cfg); err != nil {
			return nil, err
		}
	case npm == "@ai-sdk/amazon-bedrock/mantle":
		cfg.APIKey = r.opts.Getenv("AWS_BEARER_TOKEN_BEDROCK")
	}
	if k == kindResponses {
		return openai.NewResponses(cfg), nil
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = knownBaseURLs[npm]
	}
	if cfg.BaseURL == "" && npm != "@ai-sdk/openai" {
		return nil, fmt.Errorf("provider %s has no base URL: set provider.%s.options.baseURL in the config", p.ID, p.ID)
	}
	if npm != "@openrouter/ai-sdk-provider" {
		cfg.ReasoningField = m.interleavedField
	}
	if id := strings.ToLower(m.ID); npm == "@ai-sdk/mistral" || strings.Contains(id, "mistral") || strings.Contains(id, "devstral") {
		cfg.Mistral = true
	}
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Host == "api.openai.com" {
		cfg.MaxCompletionTokens = true
		cfg.SendCacheKey = true
	}
	return openai.NewChat(cfg), nil
}

// anthropicBase turns an AI SDK base URL (ending in /v1) into the Go SDK's,
// which adds v1/ itself.
func anthropicBase(base string) string {
	if base == "" {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1")
}

func (r *Registry) azure(p *Info, cfg *openai.Config) error {
	cfg.APIKeyHeader = "api-key"
	if v, ok := p.cred.options.Extra["apiVersion"].(string); ok && v != "" {
		cfg.Query = map[string]string{"api-version": v}
	}
	if cfg.BaseURL != "" {
		return nil
	}
	resource, _ := p.cred.options.Extra["resourceName"].(string)
	if resource == "" {
		for name, v := range p.cred.env {
			if strings.Contains(name, "RESOURCE_NAME") {
				resource = v
			}
		}
	}
	if resource == "" {
		return fmt.Errorf("provider %s needs a resource name: set AZURE_RESOURCE_NAME or provider.%s.options.resourceName", p.ID, p.ID)
	}
	cfg.BaseURL = "https://" + resource + ".openai.azure.com/openai/v1"
	return nil
}

func (r *Registry) vertexProject(p *Info) string {
	if v, ok := p.cred.options.Extra["project"].(string); ok && v != "" {
		return v
	}
	return r.firstEnv("GOOGLE_VERTEX_PROJECT", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT")
}

func (r *Registry) vertexLocation(p *Info) string {
	if v, ok := p.cred.options.Extra["location"].(string); ok && v != "" {
		return v
	}
	if v := r.firstEnv("GOOGLE_VERTEX_LOCATION", "GOOGLE_CLOUD_LOCATION", "VERTEX_LOCATION"); v != "" {
		return v
	}
	return "global"
}

func (r *Registry) firstEnv(names ...string) string {
	for _, n := range names {
		if v := r.opts.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// expand replaces ${VAR} in a catalog URL (Bedrock's region) from the
// environment.
func (r *Registry) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return os.Expand(s, r.opts.Getenv)
}

// client returns the HTTP client for a provider, with its timeouts:
// options.timeout bounds a whole request, options.headerTimeout the wait
// for response headers. Answers that cannot be a model's (a web page, an
// empty body) fail at once (llm.GuardStreams).
//
// Requests go through the proxy HTTPS_PROXY, HTTP_PROXY and NO_PROXY name
// (read through Options.Getenv).
func (r *Registry) client(p *Info) *http.Client {
	var c http.Client
	if r.opts.HTTPClient != nil {
		c = *r.opts.HTTPClient
	}
	tr, ok := c.Transport.(*http.Transport)
	switch {
	case c.Transport == nil:
		tr, ok = r.transport(), true
	case ok:
		tr = tr.Clone()
		tr.Proxy = llm.ProxyFunc(r.opts.Getenv)
	}
	t, h := p.cred.options.Timeout, p.cred.options.HeaderTimeout
	if t != nil && !t.Disabled && t.Millis > 0 {
		c.Timeout = time.Duration(t.Millis) * time.Millisecond
	}
	if ok && h != nil && !h.Disabled && h.Millis > 0 {
		tr = tr.Clone()
		tr.ResponseHeaderTimeout = time.Duration(h.Millis) * time.Millisecond
	}
	if ok {
		c.Transport = tr
	}
	c.Transport = llm.GuardStreams(p.ID, llm.NewSecrets(p.key()), c.Transport)
	return &c
}

// transport is the providers' shared transport: http.DefaultTransport's
// settings, with the proxy of the registry's environment.
func (r *Registry) transport() *http.Transport {
	r.trOnce.Do(func() { r.tr = llm.StreamTransport(r.opts.Getenv) })
	return r.tr
}

func truthy(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

// cloudAnthropic serves Claude on Bedrock or Vertex AI, through the
// Anthropic SDK's request options.
func (r *Registry) cloudAnthropic(k string, p *Info, m *Model, base string, headers map[string]string, client *http.Client) (llm.Provider, error) {
	cfg := anthropic.Config{ID: p.ID, Headers: headers, HTTPClient: client}
	if id := strings.ToLower(m.ID); !strings.Contains(id, "claude") && !strings.Contains(id, "anthropic") {
		return nil, fmt.Errorf("provider %s: only Claude models are supported (%s is not one)", p.ID, m.ID)
	}
	if k == kindBedrock {
		region, _ := p.cred.options.Extra["region"].(string)
		if region == "" {
			region = r.firstEnv("AWS_REGION", "AWS_DEFAULT_REGION")
		}
		profile, _ := p.cred.options.Extra["profile"].(string)
		if profile == "" {
			profile = r.opts.Getenv("AWS_PROFILE")
		}
		opts, err := anthropic.Bedrock(context.Background(), region, profile)
		if err != nil {
			return nil, fmt.Errorf("provider %s: %w", p.ID, err)
		}
		cfg.Options = opts
		return anthropic.New(cfg), nil
	}
	vc := anthropic.VertexConfig{Region: r.vertexLocation(p), Project: r.vertexProject(p), BaseURL: base}
	if p.Source != SourceEnv && p.key() != "" {
		key := p.key()
		vc.Token = func(context.Context) (string, error) { return key, nil }
	} else {
		vc.Token = googleToken()
	}
	cfg.Options = anthropic.Vertex(vc)
	return anthropic.New(cfg), nil
}

// googleToken returns a token source over Application Default Credentials,
// looked up on first use.
func googleToken() func(context.Context) (string, error) {
	var (
		once  sync.Once
		creds *gauth.Credentials
		err   error
	)
	return func(ctx context.Context) (string, error) {
		once.Do(func() {
			creds, err = credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}})
		})
		if err != nil {
			return "", err
		}
		t, err := creds.Token(ctx)
		if err != nil {
			return "", err
		}
		return t.Value, nil
	}
}
