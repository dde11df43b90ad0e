package openai

import (
	"encoding/json"
	"errors"

	"github.com/codeloop/codeloop/internal/llm/jsonscan"
)

// The Chat Completions stream is decoded here rather than by the SDK: the
// SDK builds and sends the request and turns HTTP failures into errors, but
// its reflective decoder costs several microseconds and dozens of
// allocations per chunk, which for a long answer is most of a run's CPU.
// encoding/json into the few fields the adapter reads is a fraction of that.

// chatChunk holds the fields of a chat.completion.chunk the adapter uses.
type chatChunk struct {
	Choices []chatChoice    `json:"choices"`
	Usage   *chatUsageJSON  `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chatChoice struct {
	Index        int64     `json:"index"`
	Delta        chatDelta `json:"delta"`
	FinishReason string    `json:"finish_reason"`
}

type chatDelta struct {
	Content string `json:"content"`
	// Reasoning text as compatible servers send it: reasoning_content
	// (DeepSeek, vLLM, llama.cpp) or reasoning (OpenRouter, Ollama, LM
	// Studio).
	ReasoningContent string              `json:"reasoning_content"`
	Reasoning        string              `json:"reasoning"`
	ToolCalls        []chatToolCallDelta `json:"tool_calls"`
}

type chatToolCallDelta struct {
	Index    int64  `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatUsageJSON struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// DeepSeek reports cache hits in its own field.
	PromptCacheHitTokens int64 `json:"prompt_cache_hit_tokens"`
}

// decodeChunk decodes one event's data into c, reusing its choices. A field of an unexpected type is
// left empty rather than failing the chunk, as the SDK's decoder did: some
// compatible servers put objects where OpenAI puts strings.
func decodeChunk(data []byte, c *chatChunk) error {
	// encoding/json decodes into the elements a slice already has, so
	// they are cleared first.
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = chatChunk{Choices: choices[:0]}
	if fastChunk(data, c) {
		return nil
	}
	clear(choices)
	*c = chatChunk{Choices: choices[:0]}
	err := json.Unmarshal(data, c)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// fastChunk decodes the common chunks, a text or reasoning delta or a
// finish reason, in one pass; it reports false for anything else (a tool
// call, usage, an error, a value of an unexpected type), which
// encoding/json then decodes. Keys it does not use are skipped when their
// value is a scalar and they are not a case variant of one it uses, which
// encoding/json would match.
func fastChunk(data []byte, c *chatChunk) bool {
	s := jsonscan.New(data)
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			s.Array(func() {
				c.Choices = append(c.Choices, chatChoice{})
				fastChoice(&s, &c.Choices[len(c.Choices)-1])
			})
			return true
		case "usage":
			return s.Null()
		}
		return s.SkipUnknown(key, "choices", "usage", "error")
	})
	return s.Done()
}

func fastChoice(s *jsonscan.Scanner, ch *chatChoice) {
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "index":
			ch.Index = s.Int()
		case "finish_reason":
			ch.FinishReason = s.StrOrNull()
		case "logprobs":
			return s.Null()
		case "delta":
			d := &ch.Delta
			s.Object(func(key []byte) bool {
				switch string(key) {
				case "content":
					d.Content = s.StrOrNull()
				case "reasoning_content":
					d.ReasoningContent = s.StrOrNull()
				case "reasoning":
					d.Reasoning = s.StrOrNull()
				default:
					return s.SkipUnknown(key, "content", "reasoning_content", "reasoning", "tool_calls")
				}
				return true
			})
		default:
			return s.SkipUnknown(key, "index", "finish_reason", "logprobs", "delta")
		}
		return true
	})
}
