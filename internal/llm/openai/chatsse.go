package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// The Chat Completions stream is decoded here rather than by the SDK: the
// SDK builds and sends the request and turns HTTP failures into errors, but
// its reflective decoder costs several microseconds and dozens of
// allocations per chunk, which for a long answer is most of a run's CPU.
// encoding/json into the few fields the adapter reads is a fraction of that.

// maxSSELine bounds one line of the stream, as the SDK's decoder does.
const maxSSELine = 32 << 20

// sseReader reads the data of server-sent events, one event at a time.
type sseReader struct {
	scn  *bufio.Scanner
	data []byte
}

func newSSEReader(r io.Reader) *sseReader {
	scn := bufio.NewScanner(r)
	scn.Buffer(make([]byte, 0, 4096), maxSSELine)
	return &sseReader{scn: scn}
}

// next returns the data of the next event: its data lines, each followed
// by a newline. The slice is valid until the next call. It returns false
// at the end of the stream or on a read error (see err); an event not
// closed by an empty line is dropped, as a cut-off event would be.
func (r *sseReader) next() ([]byte, bool) {
	r.data = r.data[:0]
	for r.scn.Scan() {
		line := r.scn.Bytes()
		if len(line) == 0 {
			if len(r.data) == 0 {
				continue
			}
			return r.data, true
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if string(name) != "data" {
			continue // event names, ids, retry hints and comments
		}
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		r.data = append(r.data, value...)
		r.data = append(r.data, '\n')
	}
	return nil, false
}

// err is the read error that ended the stream, if any.
func (r *sseReader) err() error { return r.scn.Err() }

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
	err := json.Unmarshal(data, c)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}
