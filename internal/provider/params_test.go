package provider

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
)

func fp(v float64) *float64 { return &v }
func ip(v int) *int         { return &v }

func TestParams(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o", "GEMINI_API_KEY": "g", "GROQ_API_KEY": "q"}
	cfg := &config.Config{Provider: map[string]config.Provider{"openai": {Models: map[string]config.ProviderModel{
		"gpt-5":  {Variants: map[string]map[string]any{"fast": {"service_tier": "priority"}, "minimal": {"disabled": true}}},
		"gpt-4o": {Options: map[string]any{"reasoningEffort": "high", "user": "me"}},
	}}}}
	r := newRegistry(t, setup{env: env, cfg: cfg})
	tests := []struct {
		model, variant string
		want           llm.Options
		err            bool
	}{
		{"anthropic/claude-sonnet-4-5", "", llm.Options{MaxOutputTokens: 32000}, false},
		{"anthropic/claude-sonnet-4-5", "high", llm.Options{MaxOutputTokens: 32000, Variant: "high", Reasoning: &llm.Reasoning{BudgetTokens: 16000}}, false},
		{"openai/gpt-5", "", llm.Options{MaxOutputTokens: 32000, Reasoning: &llm.Reasoning{Effort: "medium", Summary: "auto"}}, false},
		{"openai/gpt-5", "low", llm.Options{MaxOutputTokens: 32000, Variant: "low", Reasoning: &llm.Reasoning{Effort: "low", Summary: "auto"}}, false},
		{"openai/gpt-5", "fast", llm.Options{MaxOutputTokens: 32000, Variant: "fast", Reasoning: &llm.Reasoning{Effort: "medium", Summary: "auto"},
			ProviderOptions: map[string]any{"service_tier": "priority"}}, false},
		{"openai/gpt-5", "minimal", llm.Options{}, true},
		{"openai/gpt-5", "bogus", llm.Options{}, true},
		{"openai/gpt-4o", "", llm.Options{MaxOutputTokens: 16384, Reasoning: &llm.Reasoning{Effort: "high"}, ProviderOptions: map[string]any{"user": "me"}}, false},
		{"google/gemini-2.5-pro", "", llm.Options{MaxOutputTokens: 32000, Temperature: fp(1), TopP: fp(0.95), TopK: ip(64)}, false},
		{"google/gemini-2.5-pro", "max", llm.Options{MaxOutputTokens: 32000, Temperature: fp(1), TopP: fp(0.95), TopK: ip(64),
			Variant: "max", Reasoning: &llm.Reasoning{BudgetTokens: 31999}}, false},
		{"groq/qwen3-32b", "", llm.Options{MaxOutputTokens: 32000, Temperature: fp(0.55), TopP: fp(1)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.model+"@"+tt.variant, func(t *testing.T) {
			got, err := r.Params(context.Background(), tt.model, tt.variant)
			if tt.err {
				if err == nil {
					t.Errorf("no error; got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Params =\n%+v\nwant\n%+v", show(got), show(tt.want))
			}
		})
	}
	vs, err := r.Variants(context.Background(), "openai/gpt-5")
	if err != nil || !slices.Equal(vs, []string{"fast", "high", "low", "medium"}) {
		t.Errorf("variants = %v, %v", vs, err)
	}
}

func TestOutputTokenMax(t *testing.T) {
	r := newRegistry(t, setup{env: map[string]string{"ANTHROPIC_API_KEY": "a", "CODELOOP_EXPERIMENTAL_OUTPUT_TOKEN_MAX": "1000"}})
	o, err := r.Params(context.Background(), "anthropic/claude-haiku-4-5", "")
	if err != nil || o.MaxOutputTokens != 1000 {
		t.Errorf("max output = %d, %v", o.MaxOutputTokens, err)
	}
}

// show prints pointers' values.
func show(o llm.Options) map[string]any {
	m := map[string]any{"max": o.MaxOutputTokens, "variant": o.Variant, "body": o.ProviderOptions}
	if o.Temperature != nil {
		m["temperature"] = *o.Temperature
	}
	if o.TopP != nil {
		m["top_p"] = *o.TopP
	}
	if o.TopK != nil {
		m["top_k"] = *o.TopK
	}
	if o.Reasoning != nil {
		m["reasoning"] = *o.Reasoning
	}
	return m
}
