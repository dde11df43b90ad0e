package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// OutputTokenMax caps maxOutputTokens unless the environment says
// otherwise.
const OutputTokenMax = 32000

// Budgets of the budget-model variants.
var variantBudgets = map[string]int64{"minimal": 1024, "low": 4096, "medium": 8192, "high": 16000, "max": 31999}

// Params returns the request-parameter defaults for a model and a variant
// (empty for the model's default), as the package documentation lists
// them. The caller sets CacheKey (the session id) and may override the
// sampling values with an agent's.
func (r *Registry) Params(ctx context.Context, model, variant string) (llm.Options, error) {
	p, m, err := r.Lookup(ctx, model)
	if err != nil {
		return llm.Options{}, err
	}
	var o llm.Options
	id := strings.ToLower(m.ID)
	if m.Temperature {
		o.Temperature = defaultTemperature(id)
	}
	o.TopP = defaultTopP(id)
	o.TopK = defaultTopK(id)
	o.MaxOutputTokens = r.maxOutput(m.Limit.Output)
	npm := p.NPM
	if m.npm != "" {
		npm = m.npm
	}
	if m.Reasoning && (npm == "@ai-sdk/openai" || npm == "@ai-sdk/azure") && strings.HasPrefix(id, "gpt-5") {
		o.Reasoning = &llm.Reasoning{Effort: "medium", Summary: "auto"}
	}
	body := map[string]any{}
	maps.Copy(body, translate(m.options, &o))
	if variant != "" {
		cv, inCfg := m.variants[variant]
		if inCfg && truthy(cv["disabled"]) {
			return llm.Options{}, fmt.Errorf("variant %q of %s is disabled", variant, model)
		}
		reasoning, ok := r.variant(m, npm, variant)
		if !ok && !inCfg {
			return llm.Options{}, fmt.Errorf("model %s has no variant %q (it has: %s)", model, variant, strings.Join(r.variantNames(m), ", "))
		}
		if ok {
			o.Reasoning = reasoning
		}
		if inCfg {
			rest := maps.Clone(cv)
			delete(rest, "disabled")
			maps.Copy(body, translate(rest, &o))
		}
	}
	if o.Reasoning != nil && !o.Reasoning.Disabled && strings.Contains(npm, "anthropic") {
		// Anthropic rejects sampling changes while thinking.
		o.Temperature, o.TopK, o.TopP = nil, nil, nil
	}
	if len(body) > 0 {
		o.ProviderOptions = body
	}
	o.Variant = variant
	return o, nil
}

// Variants lists a model's reasoning presets: the catalog's efforts, the
// budget levels for budget models, "none" where thinking can be turned
// off, and the config's own variants; disabled ones are left out.
func (r *Registry) Variants(ctx context.Context, model string) ([]string, error) {
	_, m, err := r.Lookup(ctx, model)
	if err != nil {
		return nil, err
	}
	return r.variantNames(m), nil
}

func (r *Registry) variantNames(m *Model) []string {
	var out []string
	for _, ro := range m.reasoningOptions {
		switch ro.Type {
		case "effort":
			out = append(out, ro.Values...)
		case "budget_tokens":
			out = append(out, "low", "medium", "high", "max")
		case "toggle":
			out = append(out, "none", "on")
		}
	}
	for name, v := range m.variants {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
		if truthy(v["disabled"]) {
			out = slices.DeleteFunc(out, func(s string) bool { return s == name })
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// variant maps a variant name through the model's reasoning options.
func (r *Registry) variant(m *Model, npm, name string) (*llm.Reasoning, bool) {
	for _, ro := range m.reasoningOptions {
		switch ro.Type {
		case "effort":
			if slices.Contains(ro.Values, name) {
				if name == "none" {
					return &llm.Reasoning{Disabled: true}, true
				}
				rs := &llm.Reasoning{Effort: name}
				if npm == "@ai-sdk/openai" || npm == "@ai-sdk/azure" {
					rs.Summary = "auto"
				}
				return rs, true
			}
		case "budget_tokens":
			if name == "none" && ro.Min == 0 {
				return &llm.Reasoning{Disabled: true}, true
			}
			b, ok := variantBudgets[name]
			if !ok {
				continue
			}
			if ro.Max > 0 {
				b = min(b, ro.Max)
			}
			b = max(b, ro.Min)
			return &llm.Reasoning{BudgetTokens: int(b)}, true
		case "toggle":
			switch name {
			case "none", "off":
				return &llm.Reasoning{Disabled: true}, true
			case "on", "thinking":
				return &llm.Reasoning{}, true
			}
		}
	}
	return nil, false
}

// translate moves AI SDK option names a config may use into typed
// options, and returns the rest to merge into the request body.
func translate(opts map[string]any, o *llm.Options) map[string]any {
	rest := map[string]any{}
	reasoning := func() *llm.Reasoning {
		if o.Reasoning == nil {
			o.Reasoning = &llm.Reasoning{}
		}
		return o.Reasoning
	}
	for k, v := range opts {
		switch k {
		case "reasoningEffort":
			if s, ok := v.(string); ok {
				reasoning().Effort = s
			}
		case "reasoningSummary":
			if s, ok := v.(string); ok {
				reasoning().Summary = s
			}
		case "thinking":
			if t, ok := v.(map[string]any); ok {
				if t["type"] == "disabled" {
					reasoning().Disabled = true
				} else if n := num(t["budgetTokens"]); n > 0 {
					reasoning().BudgetTokens = n
				} else if n := num(t["budget_tokens"]); n > 0 {
					reasoning().BudgetTokens = n
				} else {
					rest[k] = v
				}
			}
		case "thinkingConfig":
			if t, ok := v.(map[string]any); ok {
				if n := num(t["thinkingBudget"]); n > 0 {
					reasoning().BudgetTokens = n
				}
				if s, ok := t["thinkingLevel"].(string); ok {
					reasoning().Effort = s
				}
			}
		case "store", "promptCacheKey", "setCacheKey", "include", "textVerbosity":
			// Set by the adapters, or not ours to change.
		default:
			rest[k] = v
		}
	}
	return rest
}

func num(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case int:
		return x
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return 0
}

func (r *Registry) maxOutput(limit int64) int {
	capN := OutputTokenMax
	for _, k := range []string{"CODELOOP_EXPERIMENTAL_OUTPUT_TOKEN_MAX", "OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX"} {
		if n, err := strconv.Atoi(r.opts.Getenv(k)); err == nil && n > 0 {
			capN = n
			break
		}
	}
	if limit <= 0 {
		return capN
	}
	return int(min(limit, int64(capN)))
}

func ptr[T any](v T) *T { return &v }

func defaultTemperature(id string) *float64 {
	switch {
	case strings.Contains(id, "qwen"):
		return ptr(0.55)
	case strings.Contains(id, "claude"):
		return nil
	case strings.Contains(id, "gemini"), strings.Contains(id, "glm-4.6"), strings.Contains(id, "glm-4.7"),
		strings.Contains(id, "minimax-m2"), strings.Contains(id, "kimi-k2-thinking"), strings.Contains(id, "kimi-k2.5"):
		return ptr(1.0)
	case strings.Contains(id, "kimi-k2"):
		return ptr(0.6)
	}
	return nil
}

func defaultTopP(id string) *float64 {
	switch {
	case strings.Contains(id, "qwen"):
		return ptr(1.0)
	case strings.Contains(id, "gemini"), strings.Contains(id, "minimax"), strings.Contains(id, "kimi-k2.5"):
		return ptr(0.95)
	}
	return nil
}

func defaultTopK(id string) *int {
	switch {
	case strings.Contains(id, "minimax-m2"):
		return ptr(40)
	case strings.Contains(id, "gemini"):
		return ptr(64)
	}
	return nil
}
