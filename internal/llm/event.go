package llm

// EventType says which fields of an Event are in use.
type EventType string

// The events a provider's stream yields.
const (
	EventTextStart      EventType = "text-start"
	EventTextDelta      EventType = "text-delta"
	EventTextEnd        EventType = "text-end"
	EventReasoningStart EventType = "reasoning-start"
	EventReasoningDelta EventType = "reasoning-delta"
	EventReasoningEnd   EventType = "reasoning-end"
	EventToolInputStart EventType = "tool-input-start"
	EventToolInputDelta EventType = "tool-input-delta"
	// EventToolCall is yielded once a call's arguments are complete.
	EventToolCall EventType = "tool-call"
	// EventFinish ends a successful step with its reason and usage.
	EventFinish EventType = "finish"
	// EventError ends a failed stream; Err says why.
	EventError EventType = "error"
)

// FinishReason says why the model stopped.
type FinishReason string

// The finish reasons, with the names the session loop stores.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool-calls"
	FinishContentFilter FinishReason = "content-filter"
	FinishError         FinishReason = "error"
	FinishOther         FinishReason = "other"
	FinishUnknown       FinishReason = "unknown"
)

// Usage counts the tokens of one step. Input excludes cached tokens; Output
// excludes reasoning tokens.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	Reasoning  int64 `json:"reasoning"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

// Total is the sum of all token counts.
func (u Usage) Total() int64 {
	return u.Input + u.Output + u.Reasoning + u.CacheRead + u.CacheWrite
}

// Event is one item of a provider's stream. Type selects the fields that
// apply.
type Event struct {
	Type EventType

	// ID identifies the text or reasoning block, or the tool call, an event
	// belongs to, so deltas of interleaved blocks can be told apart.
	ID string

	// Text is a text or reasoning delta, or a tool-input delta.
	Text string

	// Signature, Redacted, Encrypted and ItemID complete a reasoning block
	// (on EventReasoningEnd), as in Part. On EventToolCall and EventTextEnd,
	// Signature is Gemini's thought signature of that part and ItemID the
	// Responses API item of the call.
	Signature string
	Redacted  string
	Encrypted string
	ItemID    string

	// ToolName and Input describe a tool call; Input is the complete raw
	// JSON arguments on EventToolCall. ID is the call id.
	ToolName string
	Input    string

	// Reason and Usage are set on EventFinish.
	Reason FinishReason
	Usage  Usage

	// Err is set on EventError.
	Err *Error
}
