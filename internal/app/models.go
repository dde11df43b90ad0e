package app

import (
	"context"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/provider"
)

// models serves the provider registry to the session engine.
type models struct{ reg *provider.Registry }

func (m models) Model(ctx context.Context, ref message.ModelRef) (llm.Provider, llm.Model, error) {
	return m.reg.Resolve(ctx, ref.ProviderID+"/"+ref.ModelID)
}

func (m models) Default(ctx context.Context) (message.ModelRef, error) {
	s, err := m.reg.Default(ctx)
	if err != nil {
		return message.ModelRef{}, err
	}
	ref, _ := ParseModel(s)
	return ref, nil
}

func (m models) Small(ctx context.Context, providerID string) (message.ModelRef, bool) {
	s, err := m.reg.Small(ctx, providerID)
	if err != nil {
		return message.ModelRef{}, false
	}
	return ParseModel(s)
}

// Params are the registry's request defaults for the model and variant.
func (m models) Params(ctx context.Context, ref message.ModelRef) (llm.Options, error) {
	return m.reg.Params(ctx, ref.ProviderID+"/"+ref.ModelID, ref.Variant)
}

// mediaInResults reports whether the provider accepts images in tool
// results: Anthropic's Messages and OpenAI's Responses APIs do, Chat
// Completions endpoints do not.
func (m models) mediaInResults(providerID string) bool {
	p, ok := m.reg.Provider(context.Background(), providerID)
	if !ok {
		return false
	}
	switch p.NPM {
	case "@ai-sdk/anthropic", "@ai-sdk/openai", "@ai-sdk/amazon-bedrock", "@ai-sdk/google-vertex/anthropic":
		return true
	}
	return false
}

// ParseModel splits "provider/model" at the first slash.
func ParseModel(s string) (message.ModelRef, bool) {
	p, id, ok := strings.Cut(s, "/")
	if !ok || p == "" || id == "" {
		return message.ModelRef{}, false
	}
	return message.ModelRef{ProviderID: p, ModelID: id}, true
}
