package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/provider"
	"github.com/codeloop/codeloop/internal/session"
)

// NoModelError says no model can answer a prompt and how to make one
// available. Err is the registry's reason, when it gave one.
type NoModelError struct{ Err error }

func (e *NoModelError) Error() string {
	return "no model is available: no provider has a key and no local model server answered. To use one, either\n" +
		"  - set a provider's API key, such as ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY;\n" +
		"  - store a key with: codeloop auth login <provider>;\n" +
		"  - name a model in codeloop.json or opencode.json, as \"model\": \"provider/model\", with its provider set up there;\n" +
		"  - or start Ollama (port 11434, or OLLAMA_HOST) or LM Studio (port 1234) on this machine.\n" +
		"Then run codeloop models to see the models you can use."
}

func (e *NoModelError) Unwrap() error { return e.Err }

// PickModel returns the model a prompt to sess (nil for a new session)
// would be answered with, as the session engine chooses it: the explicit
// model, else the agent's, else the session's last, else the default. It
// checks that the model can be used, so a run can fail before it writes
// anything. An empty agentName means the default agent.
func (a *App) PickModel(ctx context.Context, explicit *message.ModelRef, agentName string, sess *session.Info) (message.ModelRef, error) {
	if _, err := (agents{a.Agents}).Agent(ctx, agentName); err != nil {
		return message.ModelRef{}, err
	}
	ref, err := a.Engine.ChooseModel(ctx, explicit, agentName, sess)
	if err != nil {
		// A configured model's own error says what is wrong with it.
		if ps, perr := a.Models.Providers(ctx); perr == nil && len(ps) == 0 && a.Config.Config.Model == "" {
			return ref, &NoModelError{Err: err}
		}
		return ref, err
	}
	if _, _, err := a.Models.Resolve(ctx, ref.ProviderID+"/"+ref.ModelID); err != nil {
		if nf := (*provider.NotFoundError)(nil); errors.As(err, &nf) {
			return ref, err // it names the model and says what to do
		}
		return ref, fmt.Errorf("model %s/%s: %w", ref.ProviderID, ref.ModelID, err)
	}
	return ref, nil
}

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

// ShellIdentity is the agent and model a user's shell command is recorded
// under: the ones asked for, else the session's, else the defaults. A
// command needs no model, so one that cannot be used now does not stop it:
// the session's last model is named instead.
func (a *App) ShellIdentity(ctx context.Context, sess *session.Info, agentName string, model *message.ModelRef) (string, message.ModelRef) {
	if agentName == "" {
		agentName = sess.Agent
	}
	if agentName == "" {
		agentName = a.Agents.Default().Name
	}
	ref, err := a.PickModel(ctx, model, agentName, sess)
	if err != nil && sess.Model != nil {
		ref = message.ModelRef{ProviderID: sess.Model.ProviderID, ModelID: sess.Model.ID}
	}
	return agentName, ref
}
