// Package llm holds the provider-neutral request and stream-event types and
// the Provider interface that every model adapter implements.
//
// A Provider streams exactly one request. Everything above it (steps, tool
// execution, retries, cancellation, compaction) belongs to the session loop.
// The adapters live in sub-packages (anthropic, openai, google) and import
// this package; this package imports none of codeloop's packages.
package llm

import (
	"context"
	"encoding/json"
	"iter"
)

// Role is the author of a message in a request.
type Role string

// The roles a request's messages may have.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool messages carry tool results only.
	RoleTool Role = "tool"
)

// PartType says which fields of a Part are in use.
type PartType string

// The kinds of content a message part may carry.
const (
	PartText       PartType = "text"
	PartFile       PartType = "file" // images, PDFs and other media, by data or URL
	PartReasoning  PartType = "reasoning"
	PartToolCall   PartType = "tool-call"
	PartToolResult PartType = "tool-result"
)

// Part is one piece of a message. Type selects the fields that apply; the
// others are zero.
type Part struct {
	Type PartType `json:"type"`

	// Text is the text of a text or reasoning part.
	Text string `json:"text,omitempty"`

	// MediaType, Filename, Data and URL describe a file part. Exactly one of
	// Data and URL is set.
	MediaType string `json:"mediaType,omitempty"`
	Filename  string `json:"filename,omitempty"`
	Data      []byte `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`

	// Signature is the provider's signature of a reasoning part (Anthropic's
	// thinking signature, Gemini's thought signature), passed back verbatim.
	// Gemini also signs text and tool-call parts; their signature is kept
	// here too.
	Signature string `json:"signature,omitempty"`
	// Redacted holds Anthropic's redacted thinking data; Text is empty then.
	Redacted string `json:"redacted,omitempty"`
	// Encrypted holds OpenAI's encrypted reasoning content and ItemID the
	// Responses API item it came from.
	Encrypted string `json:"encrypted,omitempty"`
	ItemID    string `json:"itemId,omitempty"`

	// ToolCallID and ToolName identify a tool call or the call a result
	// answers. Input is the call's raw JSON arguments.
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`

	// Output is a tool result's text; IsError marks a failed call.
	// Attachments are file parts (images) returned by the tool.
	Output      string `json:"output,omitempty"`
	IsError     bool   `json:"isError,omitempty"`
	Attachments []Part `json:"attachments,omitempty"`

	// Provider carries provider-specific metadata of a part, keyed by
	// provider, passed back on later turns.
	Provider map[string]json.RawMessage `json:"provider,omitempty"`
}

// Message is one turn of the conversation sent to a model.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// ToolSpec describes a tool the model may call.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"` // a JSON Schema object
}

// Options are the sampling and transport settings of one request.
type Options struct {
	Temperature     *float64 `json:"temperature,omitempty"`
	TopP            *float64 `json:"topP,omitempty"`
	TopK            *int     `json:"topK,omitempty"`
	MaxOutputTokens int      `json:"maxOutputTokens,omitempty"`
	// Variant names a reasoning preset of the model ("low", "high", "max",
	// ...); empty means the model's default. The provider registry turns it
	// into Reasoning; adapters read Reasoning only.
	Variant string `json:"variant,omitempty"`
	// Reasoning configures the model's thinking; nil leaves it to the
	// provider's default (usually off).
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	// ToolChoice is "", "auto", "none", "required" or a tool name.
	ToolChoice string `json:"toolChoice,omitempty"`
	// CacheKey is the prompt-cache key providers that support one receive
	// (the session id).
	CacheKey string `json:"cacheKey,omitempty"`
	// ProviderOptions are merged into the provider's request body.
	ProviderOptions map[string]any    `json:"providerOptions,omitempty"`
	Headers         map[string]string `json:"headers,omitempty"`
}

// Reasoning configures a model's thinking in provider-neutral terms. Each
// adapter maps it to its API: Anthropic thinking budgets or adaptive effort,
// OpenAI reasoning effort and summaries, Gemini thinking budget or level.
type Reasoning struct {
	// Disabled turns thinking off where the API allows it.
	Disabled bool `json:"disabled,omitempty"`
	// Effort is "none", "minimal", "low", "medium", "high", "xhigh" or
	// "max"; empty when a budget is used instead.
	Effort string `json:"effort,omitempty"`
	// BudgetTokens is a thinking budget in tokens (Anthropic, Gemini).
	BudgetTokens int `json:"budgetTokens,omitempty"`
	// Summary asks OpenAI reasoning models for summaries: "auto",
	// "concise" or "detailed".
	Summary string `json:"summary,omitempty"`
}

// Request is everything a provider needs to stream one model response.
type Request struct {
	Model    string     `json:"model"` // the provider's model id
	System   []string   `json:"system"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	Options  Options    `json:"options"`
}

// Provider streams model responses. Implementations must stop promptly, and
// release every resource, when ctx is cancelled or the caller stops ranging
// over the sequence.
type Provider interface {
	// ID is the provider id of the configuration ("anthropic", "openai",
	// "ollama", ...).
	ID() string
	// Stream sends req and yields its events in order. Failures are yielded
	// as an Event of type EventError carrying an *Error, after which the
	// sequence ends.
	Stream(ctx context.Context, req *Request) iter.Seq[Event]
}
