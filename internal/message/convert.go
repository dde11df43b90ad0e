package message

import (
	"encoding/base64"
	"net/url"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// Texts the model sees in place of parts it cannot be sent as they are.
const (
	CompactionPrompt    = "What did we do so far?"
	SubtaskPrompt       = "The following tool was executed by the user"
	InterruptedOutput   = "[Tool execution was interrupted]"
	ClearedOutput       = "[Old tool result content cleared]"
	ToolResultMediaText = "Attached media from tool result:"
)

// ConvertOptions describe the model a history is converted for.
type ConvertOptions struct {
	// ProviderID and ModelID name the model the request goes to. Reasoning
	// written by another model is sent as plain text, without the provider
	// data only its author can check.
	ProviderID string
	ModelID    string
	// ToolResultMedia says the provider accepts images and files inside
	// tool results. When false they are moved to a user message that
	// follows the results.
	ToolResultMedia bool
}

// ToModel converts a history (as FilterCompacted returns it) into the
// messages sent to a model:
//
//   - user text that is not ignored, and attached files other than text,
//     directories and MCP resource references (those were expanded into
//     other parts when the message was made);
//   - a compaction part becomes CompactionPrompt and a subtask part
//     SubtaskPrompt;
//   - assistant messages that failed are left out, except aborted ones that
//     produced something;
//   - each tool call is followed by its result: the output, the error, or
//     InterruptedOutput for a call that never finished; pruned outputs are
//     sent as ClearedOutput;
//   - an assistant message holding several steps is split at each step.
func ToModel(msgs []Message, o ConvertOptions) []llm.Message {
	out := make([]llm.Message, 0, len(msgs)+len(msgs)/2)
	for i := range msgs {
		m := &msgs[i]
		switch m.Info.Role {
		case RoleUser:
			if um, ok := userMessage(m); ok {
				out = append(out, um)
			}
		case RoleAssistant:
			out = appendAssistant(out, m, o)
		}
	}
	return out
}

func userMessage(m *Message) (llm.Message, bool) {
	var parts []llm.Part
	for _, p := range m.Parts {
		switch p := p.(type) {
		case *TextPart:
			if p.Text != "" && !p.Ignored {
				parts = append(parts, llm.Part{Type: llm.PartText, Text: p.Text})
			}
		case *FilePart:
			if p.Mime == "text/plain" || p.Mime == "application/x-directory" || resourceReference(p) {
				continue
			}
			parts = append(parts, filePart(p))
		case *CompactionPart:
			parts = append(parts, llm.Part{Type: llm.PartText, Text: CompactionPrompt})
		case *SubtaskPart:
			parts = append(parts, llm.Part{Type: llm.PartText, Text: SubtaskPrompt})
		}
	}
	return llm.Message{Role: llm.RoleUser, Parts: parts}, len(parts) > 0
}

// filePart converts a file part; a data: URL is decoded into Data.
func filePart(p *FilePart) llm.Part {
	lp := llm.Part{Type: llm.PartFile, MediaType: p.Mime, Filename: p.Filename}
	if data, mime, ok := DecodeDataURL(p.URL); ok {
		lp.Data = data
		if lp.MediaType == "" {
			lp.MediaType = mime
		}
		return lp
	}
	lp.URL = p.URL
	return lp
}

// DecodeDataURL decodes a data: URL into its bytes and media type.
func DecodeDataURL(u string) (data []byte, mime string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return nil, "", false
	}
	head, body, found := strings.Cut(rest, ",")
	if !found {
		return nil, "", false
	}
	mime, isBase64 := strings.CutSuffix(head, ";base64")
	if isBase64 {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			return nil, "", false
		}
		return b, mime, true
	}
	s, err := url.PathUnescape(body)
	if err != nil {
		return nil, "", false
	}
	return []byte(s), mime, true
}

// hasOutput reports whether an aborted assistant message produced anything
// worth keeping.
func hasOutput(m *Message) bool {
	for _, p := range m.Parts {
		switch p.(type) {
		case *StepStartPart, *ReasoningPart:
		default:
			return true
		}
	}
	return false
}

// step gathers one step of an assistant message: what the model said and
// called, then the results.
type step struct {
	said    []llm.Part
	results []llm.Part
	media   []llm.Part
}

func (s *step) empty() bool { return len(s.said) == 0 && len(s.results) == 0 }

func (s *step) flush(out []llm.Message) []llm.Message {
	if len(s.said) > 0 {
		out = append(out, llm.Message{Role: llm.RoleAssistant, Parts: s.said})
	}
	if len(s.results) > 0 {
		out = append(out, llm.Message{Role: llm.RoleTool, Parts: s.results})
	}
	if len(s.media) > 0 {
		parts := append([]llm.Part{{Type: llm.PartText, Text: ToolResultMediaText}}, s.media...)
		out = append(out, llm.Message{Role: llm.RoleUser, Parts: parts})
	}
	*s = step{}
	return out
}

func appendAssistant(out []llm.Message, m *Message, o ConvertOptions) []llm.Message {
	if m.Info.Error != nil && !(IsAborted(m.Info.Error) && hasOutput(m)) {
		return out
	}
	sameModel := m.Info.ProviderID == o.ProviderID && m.Info.ModelID == o.ModelID
	var s step
	for _, p := range m.Parts {
		switch p := p.(type) {
		case *StepStartPart:
			if !s.empty() {
				out = s.flush(out)
			}
		case *TextPart:
			if p.Text != "" && !p.Ignored {
				s.said = append(s.said, llm.Part{Type: llm.PartText, Text: p.Text})
			}
		case *ReasoningPart:
			if rp, ok := reasoningPart(p, sameModel); ok {
				s.said = append(s.said, rp)
			}
		case *ToolPart:
			call, result, media := toolParts(p, o.ToolResultMedia)
			s.said = append(s.said, call)
			s.results = append(s.results, result)
			s.media = append(s.media, media...)
		}
	}
	return s.flush(out)
}

func reasoningPart(p *ReasoningPart, sameModel bool) (llm.Part, bool) {
	if !sameModel {
		return llm.Part{Type: llm.PartText, Text: p.Text}, p.Text != ""
	}
	str := func(k string) string {
		v, _ := p.Metadata[k].(string)
		return v
	}
	rp := llm.Part{
		Type: llm.PartReasoning, Text: p.Text,
		Signature: str(ReasoningSignature), Redacted: str(ReasoningRedacted),
		Encrypted: str(ReasoningEncrypted), ItemID: str(ReasoningItemID),
	}
	return rp, rp.Text != "" || rp.Signature != "" || rp.Redacted != "" || rp.Encrypted != ""
}

// toolParts returns a tool part's call, its result, and the media to move
// out of the result when the provider cannot carry it there.
func toolParts(p *ToolPart, mediaInResult bool) (call, result llm.Part, media []llm.Part) {
	call = llm.Part{Type: llm.PartToolCall, ToolCallID: p.CallID, ToolName: p.Tool, Input: p.State.input()}
	result = llm.Part{Type: llm.PartToolResult, ToolCallID: p.CallID, ToolName: p.Tool}
	switch p.State.Status {
	case ToolCompleted:
		if p.State.Time.Compacted != 0 {
			result.Output = ClearedOutput
			break
		}
		result.Output = p.State.Output
		for _, a := range p.State.Attachments {
			if mediaInResult {
				result.Attachments = append(result.Attachments, filePart(a))
			} else {
				media = append(media, filePart(a))
			}
		}
	case ToolError:
		result.Output = p.State.Error
		result.IsError = true
	default:
		result.Output = InterruptedOutput
		result.IsError = true
	}
	return call, result, media
}
