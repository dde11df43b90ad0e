package message

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ToolStatus is the stage a tool call is in.
type ToolStatus string

// A call is pending while its arguments stream in, running once they are
// complete, and then completed or error.
const (
	ToolPending   ToolStatus = "pending"
	ToolRunning   ToolStatus = "running"
	ToolCompleted ToolStatus = "completed"
	ToolError     ToolStatus = "error"
)

// ToolState is the state of a tool call. Status selects the fields in use:
//
//	pending:   Input, Raw
//	running:   Input, Title, Metadata, Time.Start
//	completed: Input, Output, Title, Metadata, Time (Start, End, Compacted), Attachments
//	error:     Input, Error, Metadata, Time (Start, End)
//
// Its JSON form is OpenCode's, with only the fields of the status.
type ToolState struct {
	Status      ToolStatus
	Input       json.RawMessage // always a JSON object; nil encodes as {}
	Raw         string          // the arguments streamed so far
	Output      string
	Title       string
	Metadata    map[string]any
	Error       string
	Time        ToolTime
	Attachments []*FilePart
}

// ToolTime holds a call's start and end, and when its output was pruned from
// the context, in Unix milliseconds.
type ToolTime struct {
	Start     int64 `json:"start"`
	End       int64 `json:"end,omitempty"`
	Compacted int64 `json:"compacted,omitempty"`
}

// Metadata key set on a call that was cut short by an abort or a crash.
const MetadataInterrupted = "interrupted"

func (s ToolState) input() json.RawMessage {
	if len(s.Input) == 0 {
		return json.RawMessage(`{}`)
	}
	return s.Input
}

// ObjectInput returns raw if it is a JSON object, else {}. Tool inputs are
// always objects in the stored form.
func ObjectInput(raw []byte) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return json.RawMessage(`{}`)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return json.RawMessage(`{}`)
	}
	return buf.Bytes()
}

type startTime struct {
	Start int64 `json:"start"`
}

type endTime struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

type doneTime struct {
	Start     int64 `json:"start"`
	End       int64 `json:"end"`
	Compacted int64 `json:"compacted,omitempty"`
}

// MarshalJSON encodes the fields of the state's status.
func (s ToolState) MarshalJSON() ([]byte, error) {
	switch s.Status {
	case ToolPending:
		return json.Marshal(struct {
			Status ToolStatus      `json:"status"`
			Input  json.RawMessage `json:"input"`
			Raw    string          `json:"raw"`
		}{s.Status, s.input(), s.Raw})
	case ToolRunning:
		return json.Marshal(struct {
			Status   ToolStatus      `json:"status"`
			Input    json.RawMessage `json:"input"`
			Title    string          `json:"title,omitempty"`
			Metadata map[string]any  `json:"metadata,omitempty"`
			Time     startTime       `json:"time"`
		}{s.Status, s.input(), s.Title, s.Metadata, startTime{s.Time.Start}})
	case ToolCompleted:
		md := s.Metadata
		if md == nil {
			md = map[string]any{}
		}
		return json.Marshal(struct {
			Status      ToolStatus      `json:"status"`
			Input       json.RawMessage `json:"input"`
			Output      string          `json:"output"`
			Title       string          `json:"title"`
			Metadata    map[string]any  `json:"metadata"`
			Time        doneTime        `json:"time"`
			Attachments []*FilePart     `json:"attachments,omitempty"`
		}{s.Status, s.input(), s.Output, s.Title, md, doneTime(s.Time), s.Attachments})
	case ToolError:
		return json.Marshal(struct {
			Status   ToolStatus      `json:"status"`
			Input    json.RawMessage `json:"input"`
			Error    string          `json:"error"`
			Metadata map[string]any  `json:"metadata,omitempty"`
			Time     endTime         `json:"time"`
		}{s.Status, s.input(), s.Error, s.Metadata, endTime{s.Time.Start, s.Time.End}})
	}
	return nil, fmt.Errorf("tool state has unknown status %q", s.Status)
}

// UnmarshalJSON decodes a state of any status.
func (s *ToolState) UnmarshalJSON(b []byte) error {
	var raw toolStateJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	st, err := raw.state()
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// toolStateJSON is a ToolState as stored, of any status.
type toolStateJSON struct {
	Status      ToolStatus      `json:"status"`
	Input       json.RawMessage `json:"input"`
	Raw         string          `json:"raw"`
	Output      string          `json:"output"`
	Title       string          `json:"title"`
	Metadata    map[string]any  `json:"metadata"`
	Error       string          `json:"error"`
	Time        ToolTime        `json:"time"`
	Attachments []*FilePart     `json:"attachments"`
}

// state checks the status and returns the ToolState.
func (raw *toolStateJSON) state() (ToolState, error) {
	switch raw.Status {
	case ToolPending, ToolRunning, ToolCompleted, ToolError:
	default:
		return ToolState{}, fmt.Errorf("tool state has unknown status %q", raw.Status)
	}
	return ToolState{
		Status: raw.Status, Input: ObjectInput(raw.Input), Raw: raw.Raw, Output: raw.Output,
		Title: raw.Title, Metadata: raw.Metadata, Error: raw.Error, Time: raw.Time,
		Attachments: raw.Attachments,
	}, nil
}

// unmarshalToolPart decodes a tool part in one pass: its state is decoded
// in place rather than through ToolState.UnmarshalJSON, which would scan a
// large output twice more.
func unmarshalToolPart(b []byte) (Part, error) {
	var raw struct {
		PartBase
		CallID   string         `json:"callID"`
		Tool     string         `json:"tool"`
		State    toolStateJSON  `json:"state"`
		Metadata map[string]any `json:"metadata,omitempty"`
		Kind     string         `json:"kind,omitempty"`
		Touches  []ToolTouch    `json:"touches,omitempty"`
		Summary  string         `json:"summary,omitempty"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s part: %w", TypeTool, err)
	}
	st, err := raw.State.state()
	if err != nil {
		return nil, fmt.Errorf("%s part: %w", TypeTool, err)
	}
	return &ToolPart{PartBase: raw.PartBase, CallID: raw.CallID, Tool: raw.Tool, State: st, Metadata: raw.Metadata,
		Kind: raw.Kind, Touches: raw.Touches, Summary: raw.Summary}, nil
}
