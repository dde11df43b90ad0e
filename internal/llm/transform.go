package llm

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// SanitizeToolID replaces every character outside [A-Za-z0-9_-] with '_',
// the id alphabet Anthropic accepts. Ids coming from other providers (or
// from an older session) may contain dots, colons or pipes.
func SanitizeToolID(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, id)
}

// ValidText returns s with invalid UTF-8 replaced by U+FFFD, so a request
// body always encodes.
func ValidText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// DropEmpty removes what some APIs reject: empty unsigned text parts,
// reasoning parts with neither text, signature, redacted nor encrypted
// data, and messages left with no parts. The input is not modified.
func DropEmpty(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		parts := make([]Part, 0, len(m.Parts))
		for _, p := range m.Parts {
			switch p.Type {
			case PartText:
				// A signed empty part (Gemini) must go back for its
				// signature.
				if strings.TrimSpace(p.Text) == "" && p.Signature == "" {
					continue
				}
			case PartReasoning:
				if p.Text == "" && p.Signature == "" && p.Redacted == "" && p.Encrypted == "" {
					continue
				}
			}
			parts = append(parts, p)
		}
		if len(parts) == 0 {
			continue
		}
		m.Parts = parts
		out = append(out, m)
	}
	return out
}

// ToolInput returns a tool call's arguments as a JSON object, "{}" when they
// are empty or not valid JSON (a truncated call must still be sent back).
func ToolInput(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return json.RawMessage("{}")
	}
	return raw
}

// DataURL encodes a file part's data as a data: URL, or returns its URL.
func DataURL(p Part) string {
	if p.URL != "" {
		return p.URL
	}
	return "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// IsImage reports whether a file part is an image.
func IsImage(p Part) bool { return strings.HasPrefix(p.MediaType, "image/") }

// ToolResultText is the text a tool result sends back: its output, or a
// placeholder when there is none (APIs reject empty results).
func ToolResultText(p Part) string {
	if strings.TrimSpace(p.Output) == "" {
		if p.IsError {
			return "error"
		}
		return "(no output)"
	}
	return ValidText(p.Output)
}

// Plain reports whether every message holds only text, reasoning, tool
// calls and tool results without attachments: a history the adapters can
// write into a request body themselves, without the SDKs' parameter types.
func Plain(msgs []Message) bool {
	for _, m := range msgs {
		for _, part := range m.Parts {
			switch part.Type {
			case PartText, PartReasoning, PartToolCall:
			case PartToolResult:
				if len(part.Attachments) > 0 {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}
