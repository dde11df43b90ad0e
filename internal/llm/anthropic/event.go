package anthropic

import (
	"encoding/json"
	"errors"

	"github.com/codeloop/codeloop/internal/llm/jsonscan"
)

// The Messages stream is decoded here rather than by the SDK: the SDK
// builds and sends the request (and, for Bedrock, turns AWS event-stream
// frames back into server-sent events) and turns HTTP failures into
// errors, but its reflective decoder costs several microseconds and dozens
// of allocations per event, which for a long answer is most of a run's
// CPU. encoding/json into the few fields the adapter reads is a fraction
// of that.

// streamEvent holds the fields of a Messages stream event the adapter
// uses; Type says which are set.
type streamEvent struct {
	Type         string       `json:"type"`
	Index        int64        `json:"index"`
	Message      eventMessage `json:"message"`
	ContentBlock eventBlock   `json:"content_block"`
	Delta        eventDelta   `json:"delta"`
	Usage        deltaUsage   `json:"usage"`
}

// eventMessage is message_start's message.
type eventMessage struct {
	Usage struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// eventBlock is content_block_start's block.
type eventBlock struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
	Data      string `json:"data"` // redacted thinking
	ID        string `json:"id"`
	Name      string `json:"name"`
}

// eventDelta is the delta of content_block_delta and of message_delta.
type eventDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// deltaUsage is message_delta's cumulative usage; a nil field was absent.
type deltaUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	OutputTokensDetails      struct {
		ThinkingTokens int64 `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

// decodeEvent decodes one event's data into ev, clearing what the previous
// event left. A field of an unexpected type is left empty rather than
// failing the event, as the SDK's decoder did.
func decodeEvent(data []byte, ev *streamEvent) error {
	*ev = streamEvent{}
	if fastEvent(data, ev) {
		return nil
	}
	*ev = streamEvent{}
	err := json.Unmarshal(data, ev)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// fastEvent decodes the events of a streamed block, a content_block_delta
// most of all, in one pass; it reports false for anything else (an event
// with a message, a block or usage, a value of an unexpected type), which
// encoding/json then decodes. Keys it does not use are skipped when their
// value is a scalar and they are not a case variant of one it uses, which
// encoding/json would match.
func fastEvent(data []byte, ev *streamEvent) bool {
	s := jsonscan.New(data)
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			ev.Type = s.Str()
		case "index":
			ev.Index = s.Int()
		case "delta":
			d := &ev.Delta
			s.Object(func(key []byte) bool {
				switch string(key) {
				case "type":
					d.Type = s.StrOrNull()
				case "text":
					d.Text = s.StrOrNull()
				case "thinking":
					d.Thinking = s.StrOrNull()
				case "signature":
					d.Signature = s.StrOrNull()
				case "partial_json":
					d.PartialJSON = s.StrOrNull()
				case "stop_reason":
					d.StopReason = s.StrOrNull()
				default:
					return s.SkipUnknown(key, "type", "text", "thinking", "signature", "partial_json", "stop_reason")
				}
				return true
			})
		default:
			return s.SkipUnknown(key, "type", "index", "message", "content_block", "delta", "usage")
		}
		return true
	})
	return s.Done()
}
