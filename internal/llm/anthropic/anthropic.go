// Package anthropic adapts Anthropic's Messages API, through the official
// SDK, to codeloop's provider-neutral llm.Provider: streaming, tool use,
// extended thinking (signed and redacted thinking passed back), prompt-cache
// breakpoints on the first two system blocks and the last two messages,
// tool-call ids sanitised to [A-Za-z0-9_-], empty text and messages
// dropped. Claude on Bedrock and on Vertex AI works through the same code
// with the SDK's own request options (Config.Options).
//
// The SDK builds, signs and sends every request and reports HTTP
// failures, except that the messages of a conversation without files are
// written into the body here (body.go), and the response stream is
// decoded here (event.go, internal/sse): the SDK's reflective encoder and
// decoder dominated the CPU and memory of long histories and long
// answers.
//
// The SDK's retries are off: the session loop owns retries. Only the
// provider registry (internal/provider) and tests import this package.
package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/sse"
)

// Config configures one Anthropic provider.
type Config struct {
	// ID is the provider id used in errors; "anthropic" when empty.
	ID      string
	APIKey  string
	BaseURL string // empty means the SDK's default
	Headers map[string]string
	// Beta lists anthropic-beta features to turn on.
	Beta       []string
	HTTPClient *http.Client
	// Options are extra SDK options, applied last: Bedrock's or Vertex's
	// request signing and endpoint.
	Options []option.RequestOption
}

// Provider streams Claude responses.
type Provider struct {
	id      string
	svc     sdk.MessageService
	secrets *llm.Secrets
}

// New returns a provider for cfg. It never touches the network.
func New(cfg Config) *Provider {
	id := cfg.ID
	if id == "" {
		id = "anthropic"
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if len(cfg.Beta) > 0 {
		opts = append(opts, option.WithHeader("anthropic-beta", strings.Join(cfg.Beta, ",")))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	opts = append(opts, cfg.Options...)
	client := sdk.NewClient(opts...)
	return &Provider{id: id, svc: client.Messages, secrets: llm.NewSecrets(cfg.APIKey)}
}

// ID returns the provider id.
func (p *Provider) ID() string { return p.id }

// block is a content block being streamed.
type block struct {
	kind     string // text, thinking, redacted_thinking, tool_use
	id       string // the event id: the tool call id, or the block index
	name     string
	input    strings.Builder
	sig      string
	redacted string
}

// Stream sends req and yields its events.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		// The SDK sends the request and reports HTTP failures; the body it
		// hands back is read here (see event.go). The SDK's stream is only
		// closed, never iterated. A conversation without files is written
		// directly (see body.go); the options then edit the body.
		var params sdk.MessageNewParams
		body, opts, direct := messagesBody(req)
		if direct {
			opts = append([]option.RequestOption{option.WithRequestBody("application/json", body)}, opts...)
			// The SDK still sees the model and the thinking mode, which it
			// checks before it sends; the body it writes of them is
			// replaced.
			params = sdk.MessageNewParams{Model: sdk.Model(req.Model)}
			applyReasoning(&params, req.Options.Reasoning)
		} else {
			params, opts = buildParams(req)
		}
		var raw *http.Response
		stream := p.svc.NewStreaming(ctx, params, append(opts, option.WithResponseInto(&raw))...)
		defer stream.Close()
		if err := stream.Err(); err != nil || raw == nil || raw.Body == nil {
			if err == nil {
				err = errors.New("no response body")
			}
			yield(llm.Event{Type: llm.EventError, Err: p.classify(ctx, err)})
			return
		}

		blocks := map[int64]*block{}
		var usage llm.Usage
		var stop string
		stopped := false
		events := sse.NewReader(raw.Body)
		var streamErr error
		var ev streamEvent // reused: one allocation for the whole stream
		for {
			if !events.Next() {
				streamErr = events.Err()
				break
			}
			switch string(events.Name()) {
			case "", "ping":
				continue
			case "error":
				// An error event inside a 200 stream: its type says what
				// happened.
				yield(llm.Event{Type: llm.EventError, Err: llm.Classify(llm.Failure{
					Provider: p.id, Body: bytes.Clone(events.Data()), Secrets: p.secrets.List(),
				})})
				return
			}
			data := events.Data()
			if len(bytes.TrimSuffix(data, []byte("\n"))) == 0 {
				continue
			}
			if err := decodeEvent(data, &ev); err != nil {
				streamErr = fmt.Errorf("decode a stream event: %w", err)
				break
			}
			switch ev.Type {
			case "message_start":
				u := ev.Message.Usage
				usage = llm.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens}
			case "content_block_start":
				if !p.startBlock(&ev, blocks, yield) {
					return
				}
			case "content_block_delta":
				if !deltaBlock(&ev, blocks[ev.Index], yield) {
					return
				}
			case "content_block_stop":
				b := blocks[ev.Index]
				delete(blocks, ev.Index)
				if b != nil && !endBlock(b, yield) {
					return
				}
			case "message_delta":
				stop = ev.Delta.StopReason
				mergeUsage(&usage, &ev.Usage)
			case "message_stop":
				stopped = true
			}
		}
		if streamErr != nil || ctx.Err() != nil {
			yield(llm.Event{Type: llm.EventError, Err: p.classify(ctx, streamErr)})
			return
		}
		if !stopped && stop == "" {
			yield(llm.Event{Type: llm.EventError, Err: &llm.Error{
				Kind: llm.ErrRetryable, Provider: p.id, Message: "the response stream ended before the message was complete",
			}})
			return
		}
		for _, b := range blocks { // blocks a truncated stream never closed
			if !endBlock(b, yield) {
				return
			}
		}
		yield(llm.Event{Type: llm.EventFinish, Reason: finishReason(stop), Usage: usage})
	}
}

func (p *Provider) startBlock(ev *streamEvent, blocks map[int64]*block, yield func(llm.Event) bool) bool {
	cb := ev.ContentBlock
	b := &block{kind: cb.Type, id: strconv.FormatInt(ev.Index, 10)}
	switch cb.Type {
	case "text":
		blocks[ev.Index] = b
		if !yield(llm.Event{Type: llm.EventTextStart, ID: b.id}) {
			return false
		}
		if cb.Text != "" {
			return yield(llm.Event{Type: llm.EventTextDelta, ID: b.id, Text: cb.Text})
		}
	case "thinking":
		blocks[ev.Index] = b
		b.sig = cb.Signature
		if !yield(llm.Event{Type: llm.EventReasoningStart, ID: b.id}) {
			return false
		}
		if cb.Thinking != "" {
			return yield(llm.Event{Type: llm.EventReasoningDelta, ID: b.id, Text: cb.Thinking})
		}
	case "redacted_thinking":
		blocks[ev.Index] = b
		b.redacted = cb.Data
		return yield(llm.Event{Type: llm.EventReasoningStart, ID: b.id})
	case "tool_use":
		b.id, b.name = cb.ID, cb.Name
		blocks[ev.Index] = b
		return yield(llm.Event{Type: llm.EventToolInputStart, ID: b.id, ToolName: b.name})
	}
	// Server tools and other block types are not ours to report.
	return true
}

func deltaBlock(ev *streamEvent, b *block, yield func(llm.Event) bool) bool {
	if b == nil {
		return true
	}
	d := ev.Delta
	switch d.Type {
	case "text_delta":
		if d.Text != "" {
			return yield(llm.Event{Type: llm.EventTextDelta, ID: b.id, Text: d.Text})
		}
	case "thinking_delta":
		if d.Thinking != "" {
			return yield(llm.Event{Type: llm.EventReasoningDelta, ID: b.id, Text: d.Thinking})
		}
	case "signature_delta":
		b.sig += d.Signature
	case "input_json_delta":
		b.input.WriteString(d.PartialJSON)
		if d.PartialJSON != "" {
			return yield(llm.Event{Type: llm.EventToolInputDelta, ID: b.id, Text: d.PartialJSON})
		}
	}
	return true
}

func endBlock(b *block, yield func(llm.Event) bool) bool {
	switch b.kind {
	case "text":
		return yield(llm.Event{Type: llm.EventTextEnd, ID: b.id})
	case "thinking", "redacted_thinking":
		return yield(llm.Event{Type: llm.EventReasoningEnd, ID: b.id, Signature: b.sig, Redacted: b.redacted})
	case "tool_use":
		input := b.input.String()
		if strings.TrimSpace(input) == "" {
			input = "{}"
		}
		return yield(llm.Event{Type: llm.EventToolCall, ID: b.id, ToolName: b.name, Input: input})
	}
	return true
}

// mergeUsage takes message_delta's cumulative usage over message_start's.
// Output includes thinking tokens on the wire; ours excludes them.
func mergeUsage(u *llm.Usage, d *deltaUsage) {
	if d.InputTokens != nil && *d.InputTokens > 0 {
		u.Input = *d.InputTokens
	}
	if d.CacheReadInputTokens != nil && *d.CacheReadInputTokens > 0 {
		u.CacheRead = *d.CacheReadInputTokens
	}
	if d.CacheCreationInputTokens != nil && *d.CacheCreationInputTokens > 0 {
		u.CacheWrite = *d.CacheCreationInputTokens
	}
	if d.OutputTokens != nil {
		u.Output = *d.OutputTokens
	}
	if r := d.OutputTokensDetails.ThinkingTokens; r > 0 && r <= u.Output {
		u.Reasoning = r
		u.Output -= r
	}
}

func finishReason(stop string) llm.FinishReason {
	switch stop {
	case "end_turn", "stop_sequence", "pause_turn":
		return llm.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishLength
	case "tool_use":
		return llm.FinishToolCalls
	case "refusal":
		return llm.FinishContentFilter
	case "":
		return llm.FinishUnknown
	}
	return llm.FinishOther
}

// classify turns the SDK's failure into an *llm.Error.
func (p *Provider) classify(ctx context.Context, err error) *llm.Error {
	if ctx.Err() != nil {
		return llm.Canceled(p.id, ctx.Err())
	}
	var ae *sdk.Error
	if errors.As(err, &ae) {
		f := llm.Failure{Provider: p.id, Type: string(ae.Type()), Body: []byte(ae.RawJSON()), Secrets: p.secrets.List()}
		if ae.Response != nil && ae.StatusCode != http.StatusOK {
			f.StatusCode = ae.StatusCode
			f.Header = ae.Response.Header
		}
		// An error event inside a 200 stream keeps status 0: its type says
		// what happened.
		return llm.Classify(f)
	}
	if msg, ok := strings.CutPrefix(err.Error(), "received error while streaming: "); ok {
		return llm.Classify(llm.Failure{Provider: p.id, Body: []byte(msg), Err: err, Secrets: p.secrets.List()})
	}
	return llm.FromError(p.id, err, p.secrets.List()...)
}
