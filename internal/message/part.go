package message

import (
	"encoding/json"
	"fmt"
)

// Part type names, as they appear in the "type" field.
const (
	TypeText       = "text"
	TypeReasoning  = "reasoning"
	TypeFile       = "file"
	TypeTool       = "tool"
	TypeStepStart  = "step-start"
	TypeStepFinish = "step-finish"
	TypeSnapshot   = "snapshot"
	TypePatch      = "patch"
	TypeAgent      = "agent"
	TypeSubtask    = "subtask"
	TypeRetry      = "retry"
	TypeCompaction = "compaction"
)

// Part is one piece of a message. The concrete types are the pointers
// *TextPart, *ReasoningPart, *FilePart, *ToolPart, *StepStartPart,
// *StepFinishPart, *SnapshotPart, *PatchPart, *AgentPart, *SubtaskPart,
// *RetryPart and *CompactionPart.
type Part interface {
	// Base gives access to the ids every part has.
	Base() *PartBase
	// Type is the part's "type" field.
	Type() string
}

// PartBase holds the ids every part has.
type PartBase struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
}

// Base returns b itself.
func (b *PartBase) Base() *PartBase { return b }

// PartTime is when a text or reasoning part started and ended, in Unix
// milliseconds.
type PartTime struct {
	Start int64 `json:"start"`
	End   int64 `json:"end,omitempty"`
}

// TextPart is text written by the user or the model. Synthetic text was
// added by codeloop rather than typed; ignored text is kept for display but
// never sent to a model.
type TextPart struct {
	PartBase
	Text      string         `json:"text"`
	Synthetic bool           `json:"synthetic,omitempty"`
	Ignored   bool           `json:"ignored,omitempty"`
	Time      *PartTime      `json:"time,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// ReasoningPart is the model's visible reasoning. Metadata keeps what the
// provider needs back on later turns (ReasoningSignature and friends).
type ReasoningPart struct {
	PartBase
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata,omitempty"`
	Time     PartTime       `json:"time"`
}

// Keys of ReasoningPart.Metadata holding provider data.
const (
	ReasoningSignature = "signature"
	ReasoningRedacted  = "redacted"
	ReasoningEncrypted = "encrypted"
	ReasoningItemID    = "itemId"
)

// FilePart is an attached file: an image, a PDF, or a text file the user
// referenced. URL is a data: or file: URL; Source says where it came from
// (a file, a symbol, an MCP resource) and is kept as written.
type FilePart struct {
	PartBase
	Mime     string          `json:"mime"`
	Filename string          `json:"filename,omitempty"`
	URL      string          `json:"url"`
	Source   json.RawMessage `json:"source,omitempty"`
}

// ToolPart is one tool call and its state.
type ToolPart struct {
	PartBase
	CallID   string         `json:"callID"`
	Tool     string         `json:"tool"`
	State    ToolState      `json:"state"`
	Metadata map[string]any `json:"metadata,omitempty"`
	// Kind is what the tool does (read, edit, execute, ...), Touches
	// the files the call reads or changes and Summary one line about what
	// it works on, as the tool described them when the call started.
	Kind    string      `json:"kind,omitempty"`
	Touches []ToolTouch `json:"touches,omitempty"`
	Summary string      `json:"summary,omitempty"`
}

// ToolTouch is a file a tool call reads or changes.
type ToolTouch struct {
	Path  string `json:"path"`
	Line  int    `json:"line,omitempty"`
	Write bool   `json:"write,omitempty"`
}

// StepStartPart marks the start of a model step; Snapshot is the tree
// before it.
type StepStartPart struct {
	PartBase
	Snapshot string `json:"snapshot,omitempty"`
}

// StepFinishPart marks the end of a model step with its usage.
type StepFinishPart struct {
	PartBase
	Reason   string  `json:"reason"`
	Snapshot string  `json:"snapshot,omitempty"`
	Cost     float64 `json:"cost"`
	Tokens   Tokens  `json:"tokens"`
}

// SnapshotPart records a tree snapshot.
type SnapshotPart struct {
	PartBase
	Snapshot string `json:"snapshot"`
}

// PatchPart lists the files a step changed and the snapshot holding them.
type PatchPart struct {
	PartBase
	Hash  string   `json:"hash"`
	Files []string `json:"files"`
	// Skipped lists changes the step made that could not be kept for a
	// revert ("path: reason").
	Skipped []string `json:"skipped,omitempty"`
}

// AgentPart is an @agent mention in a user message.
type AgentPart struct {
	PartBase
	Name   string       `json:"name"`
	Source *AgentSource `json:"source,omitempty"`
}

// AgentSource is where in the text an agent was mentioned.
type AgentSource struct {
	Value string `json:"value"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// SubtaskPart asks the loop to run a subagent directly (a slash command
// bound to a subagent).
type SubtaskPart struct {
	PartBase
	Prompt      string    `json:"prompt"`
	Description string    `json:"description"`
	Agent       string    `json:"agent"`
	Model       *ModelRef `json:"model,omitempty"`
	Command     string    `json:"command,omitempty"`
}

// RetryPart records a failed attempt that was retried.
type RetryPart struct {
	PartBase
	Attempt int       `json:"attempt"`
	Error   Error     `json:"error"`
	Time    RetryTime `json:"time"`
}

// RetryTime is when a retry was recorded, in Unix milliseconds.
type RetryTime struct {
	Created int64 `json:"created"`
}

// CompactionPart asks the loop to summarise the history. Overflow says the
// context overflowed on the latest user message, which is replayed after the
// summary; TailStartID is the first message kept verbatim after it.
type CompactionPart struct {
	PartBase
	Auto        bool   `json:"auto"`
	Overflow    bool   `json:"overflow,omitempty"`
	TailStartID string `json:"tail_start_id,omitempty"`
}

func (*TextPart) Type() string       { return TypeText }
func (*ReasoningPart) Type() string  { return TypeReasoning }
func (*FilePart) Type() string       { return TypeFile }
func (*ToolPart) Type() string       { return TypeTool }
func (*StepStartPart) Type() string  { return TypeStepStart }
func (*StepFinishPart) Type() string { return TypeStepFinish }
func (*SnapshotPart) Type() string   { return TypeSnapshot }
func (*PatchPart) Type() string      { return TypePatch }
func (*AgentPart) Type() string      { return TypeAgent }
func (*SubtaskPart) Type() string    { return TypeSubtask }
func (*RetryPart) Type() string      { return TypeRetry }
func (*CompactionPart) Type() string { return TypeCompaction }

// withType prepends "type":typ to the encoded object b.
func withType(typ string, b []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+len(typ)+10)
	out = append(out, `{"type":"`...)
	out = append(out, typ...)
	out = append(out, '"')
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// The MarshalJSON methods add the "type" discriminator.

func (p TextPart) MarshalJSON() ([]byte, error) {
	type plain TextPart
	b, err := json.Marshal(plain(p))
	return withType(TypeText, b, err)
}

func (p ReasoningPart) MarshalJSON() ([]byte, error) {
	type plain ReasoningPart
	b, err := json.Marshal(plain(p))
	return withType(TypeReasoning, b, err)
}

func (p FilePart) MarshalJSON() ([]byte, error) {
	type plain FilePart
	b, err := json.Marshal(plain(p))
	return withType(TypeFile, b, err)
}

func (p ToolPart) MarshalJSON() ([]byte, error) {
	type plain ToolPart
	b, err := json.Marshal(plain(p))
	return withType(TypeTool, b, err)
}

func (p StepStartPart) MarshalJSON() ([]byte, error) {
	type plain StepStartPart
	b, err := json.Marshal(plain(p))
	return withType(TypeStepStart, b, err)
}

func (p StepFinishPart) MarshalJSON() ([]byte, error) {
	type plain StepFinishPart
	b, err := json.Marshal(plain(p))
	return withType(TypeStepFinish, b, err)
}

func (p SnapshotPart) MarshalJSON() ([]byte, error) {
	type plain SnapshotPart
	b, err := json.Marshal(plain(p))
	return withType(TypeSnapshot, b, err)
}

func (p PatchPart) MarshalJSON() ([]byte, error) {
	type plain PatchPart
	if p.Files == nil {
		p.Files = []string{}
	}
	b, err := json.Marshal(plain(p))
	return withType(TypePatch, b, err)
}

func (p AgentPart) MarshalJSON() ([]byte, error) {
	type plain AgentPart
	b, err := json.Marshal(plain(p))
	return withType(TypeAgent, b, err)
}

func (p SubtaskPart) MarshalJSON() ([]byte, error) {
	type plain SubtaskPart
	b, err := json.Marshal(plain(p))
	return withType(TypeSubtask, b, err)
}

func (p RetryPart) MarshalJSON() ([]byte, error) {
	type plain RetryPart
	b, err := json.Marshal(plain(p))
	return withType(TypeRetry, b, err)
}

func (p CompactionPart) MarshalJSON() ([]byte, error) {
	type plain CompactionPart
	b, err := json.Marshal(plain(p))
	return withType(TypeCompaction, b, err)
}

// UnmarshalPart decodes one part, choosing its type by the "type" field.
func UnmarshalPart(b []byte) (Part, error) { return DecodePart(b, nil) }

// DecodePart decodes b as UnmarshalPart does, taking the values that
// repeat from part to part (session, message, snapshot, …) from strs when
// it holds them; a nil strs shares nothing.
func DecodePart(b []byte, strs *Strings) (Part, error) {
	typ, ok := peekString(b, "type")
	if !ok {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, err
		}
		typ = head.Type
	}
	if p, ok := fastPartShared(typ, b, strs); ok {
		return p, nil
	}
	p, err := unmarshalPartAs(typ, b)
	if err == nil && strs != nil {
		base := p.Base()
		base.SessionID, base.MessageID = strs.share(base.SessionID), strs.share(base.MessageID)
	}
	return p, err
}

// unmarshalPartAs decodes b, a part of type typ, with encoding/json.
func unmarshalPartAs(typ string, b []byte) (Part, error) {
	var p Part
	switch typ {
	case TypeText:
		p = new(TextPart)
	case TypeReasoning:
		p = new(ReasoningPart)
	case TypeFile:
		p = new(FilePart)
	case TypeTool:
		return unmarshalToolPart(b)
	case TypeStepStart:
		p = new(StepStartPart)
	case TypeStepFinish:
		p = new(StepFinishPart)
	case TypeSnapshot:
		p = new(SnapshotPart)
	case TypePatch:
		p = new(PatchPart)
	case TypeAgent:
		p = new(AgentPart)
	case TypeSubtask:
		p = new(SubtaskPart)
	case TypeRetry:
		p = new(RetryPart)
	case TypeCompaction:
		p = new(CompactionPart)
	default:
		return nil, fmt.Errorf("unknown part type %q", typ)
	}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("%s part: %w", typ, err)
	}
	return p, nil
}

// Clone returns a deep copy of p, made through its JSON form.
func Clone(p Part) (Part, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("copying a %s part: %w", p.Type(), err)
	}
	return UnmarshalPart(b)
}
