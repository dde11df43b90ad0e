// Package openai adapts OpenAI's APIs, through the official SDK, to
// codeloop's provider-neutral llm.Provider, in two flavours:
//
//   - Responses, the Responses API for OpenAI's own models (and Azure
//     OpenAI): reasoning effort and summaries, encrypted reasoning carried
//     between turns (store is always false, so nothing is kept server-side),
//     the prompt-cache key set from Options.CacheKey.
//   - Chat, Chat Completions for every OpenAI-compatible endpoint (Ollama,
//     LM Studio, vLLM, OpenRouter, Groq, DeepSeek, xAI, Mistral, Together,
//     Fireworks, Cerebras, ...): tool-call deltas merged by index, usage
//     from stream_options.include_usage, reasoning from the
//     reasoning_content or reasoning delta fields such servers send.
//
// The SDK builds and sends every request and reports HTTP failures; the
// Chat Completions stream itself is decoded here (chatchunk.go,
// internal/sse), since the SDK's reflective decoder dominated the CPU
// of long answers.
//
// The SDK's retries are off: the session loop owns retries. Only the
// provider registry (internal/provider) and tests import this package.
package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/codeloop/codeloop/internal/llm"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures one OpenAI or OpenAI-compatible provider.
type Config struct {
	// ID is the provider id used in errors; "openai" when empty.
	ID      string
	APIKey  string
	BaseURL string // DefaultBaseURL when empty
	Headers map[string]string
	// Query parameters added to every request (Azure's api-version).
	Query map[string]string
	// APIKeyHeader sends the key in this header instead of as a bearer
	// token (Azure's "api-key").
	APIKeyHeader string
	HTTPClient   *http.Client

	// Chat Completions compatibility switches.

	// ReasoningField names the assistant-message field reasoning text is
	// sent back in ("reasoning_content" for DeepSeek and others); empty
	// drops reasoning from history.
	ReasoningField string
	// SendCacheKey sends prompt_cache_key on Chat Completions requests, for
	// servers that understand it.
	SendCacheKey bool
	// MaxCompletionTokens sends max_completion_tokens instead of max_tokens.
	MaxCompletionTokens bool
	// Mistral applies Mistral's rules: tool-call ids of exactly nine
	// letters and digits, and an assistant turn between a tool result and
	// the next user message.
	Mistral bool
}

func (c Config) id() string {
	if c.ID == "" {
		return "openai"
	}
	return c.ID
}

// options builds the SDK options shared by both flavours. The SDK's
// environment defaults (OPENAI_API_KEY, OPENAI_ORG_ID, ...) are not used:
// services are built directly, so an OpenAI organisation header never
// reaches a third-party endpoint.
func (c Config) options() []option.RequestOption {
	base := c.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	client := c.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(client),
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
	}
	switch {
	case c.APIKey != "" && c.APIKeyHeader != "":
		opts = append(opts, option.WithHeader(c.APIKeyHeader, c.APIKey))
	case c.APIKey != "":
		opts = append(opts, option.WithAPIKey(c.APIKey))
	}
	for k, v := range c.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	for k, v := range c.Query {
		opts = append(opts, option.WithQuery(k, v))
	}
	return opts
}

// requestOptions are the per-request options: extra headers and provider
// options merged into the body.
func requestOptions(o llm.Options) []option.RequestOption {
	var opts []option.RequestOption
	for k, v := range o.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	for k, v := range o.ProviderOptions {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	return opts
}

// classify turns the SDK's failure into an *llm.Error.
func classify(ctx context.Context, id string, secrets []string, err error) *llm.Error {
	if ctx.Err() != nil {
		return llm.Canceled(id, ctx.Err())
	}
	var ae *sdk.Error
	if errors.As(err, &ae) {
		f := llm.Failure{Provider: id, Message: ae.Message, Type: strings.TrimSpace(ae.Type + " " + ae.Code),
			Body: []byte(ae.RawJSON()), Secrets: secrets}
		if ae.Response != nil {
			f.StatusCode = ae.StatusCode
			f.Header = ae.Response.Header
			if f.Message == "" {
				f.Message = http.StatusText(ae.StatusCode)
			}
		}
		return llm.Classify(f)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		// An {"error": ...} payload inside a 200 stream.
		return llm.Classify(llm.Failure{Provider: id, Body: se.Event.Data, Secrets: secrets})
	}
	return llm.FromError(id, err, secrets...)
}

// streamEnded is the error for a stream that stopped before it said it was
// done.
func streamEnded(id string) *llm.Error {
	return &llm.Error{Kind: llm.ErrRetryable, Provider: id, Message: "the response stream ended before the response was complete"}
}
