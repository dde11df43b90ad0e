package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/sse"
)

// Chat streams through Chat Completions, the API every OpenAI-compatible
// server speaks.
type Chat struct {
	id      string
	cfg     *Config // behind a pointer: printing a Chat shows no key
	svc     sdk.ChatCompletionService
	secrets *llm.Secrets
}

// NewChat returns a Chat Completions provider. It never touches the
// network.
func NewChat(cfg Config) *Chat {
	return &Chat{id: cfg.id(), cfg: &cfg, svc: sdk.NewChatCompletionService(cfg.options()...), secrets: llm.NewSecrets(cfg.APIKey)}
}

// ID returns the provider id.
func (p *Chat) ID() string { return p.id }

// buildChat converts a request to Chat Completions parameters and the
// per-request options.
func (p *Chat) buildChat(req *llm.Request) (sdk.ChatCompletionNewParams, []option.RequestOption) {
	o := req.Options
	c := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	// One system message: several trip up the chat templates of some
	// local models.
	var sys []string
	for _, s := range req.System {
		if strings.TrimSpace(s) != "" {
			sys = append(sys, llm.ValidText(s))
		}
	}
	if len(sys) > 0 {
		c.Messages = append(c.Messages, sdk.SystemMessage(strings.Join(sys, "\n\n")))
	}
	for _, m := range llm.DropEmpty(req.Messages) {
		c.Messages = append(c.Messages, p.chatMessages(m)...)
	}
	if p.cfg.Mistral {
		c.Messages = mistralTurns(c.Messages)
	}
	for _, t := range req.Tools {
		var schema map[string]any
		_ = json.Unmarshal(t.Schema, &schema)
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fd.Description = param.NewOpt(t.Description)
		}
		c.Tools = append(c.Tools, sdk.ChatCompletionToolUnionParam{OfFunction: &sdk.ChatCompletionFunctionToolParam{Function: fd}})
	}
	if len(c.Tools) > 0 && o.ToolChoice != "" {
		switch o.ToolChoice {
		case "auto", "none", "required":
			c.ToolChoice = sdk.ChatCompletionToolChoiceOptionUnionParam{OfAuto: param.NewOpt(o.ToolChoice)}
		default:
			c.ToolChoice = sdk.ChatCompletionToolChoiceOptionUnionParam{OfFunctionToolChoice: &sdk.ChatCompletionNamedToolChoiceParam{
				Function: sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: o.ToolChoice},
			}}
		}
	}
	if o.MaxOutputTokens > 0 {
		if p.cfg.MaxCompletionTokens {
			c.MaxCompletionTokens = param.NewOpt(int64(o.MaxOutputTokens))
		} else {
			c.MaxTokens = param.NewOpt(int64(o.MaxOutputTokens))
		}
	}
	if o.Temperature != nil {
		c.Temperature = param.NewOpt(*o.Temperature)
	}
	if o.TopP != nil {
		c.TopP = param.NewOpt(*o.TopP)
	}
	if o.CacheKey != "" && p.cfg.SendCacheKey {
		c.PromptCacheKey = param.NewOpt(o.CacheKey)
	}
	if r := o.Reasoning; r != nil && !r.Disabled && r.Effort != "" {
		c.ReasoningEffort = shared.ReasoningEffort(r.Effort)
	}
	opts := requestOptions(o)
	if o.TopK != nil {
		// Not OpenAI's, but vLLM, Ollama, OpenRouter and others take it.
		opts = append(opts, option.WithJSONSet("top_k", *o.TopK))
	}
	return c, opts
}

// chatMessages maps one message to Chat Completions messages. Tool results
// become tool messages; images they carry follow in a user message, since
// tool messages hold text only.
func (p *Chat) chatMessages(m llm.Message) []sdk.ChatCompletionMessageParamUnion {
	var out []sdk.ChatCompletionMessageParamUnion
	var images []sdk.ChatCompletionContentPartUnionParam
	switch m.Role {
	case llm.RoleAssistant:
		a := &sdk.ChatCompletionAssistantMessageParam{}
		var text, reasoning strings.Builder
		for _, part := range m.Parts {
			switch part.Type {
			case llm.PartText:
				text.WriteString(llm.ValidText(part.Text))
			case llm.PartReasoning:
				reasoning.WriteString(llm.ValidText(part.Text))
			case llm.PartToolCall:
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID: p.callID(part.ToolCallID),
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name: part.ToolName, Arguments: string(llm.ToolInput(part.Input)),
					},
				}})
			}
		}
		if text.Len() > 0 {
			a.Content = sdk.ChatCompletionAssistantMessageParamContentUnion{OfString: param.NewOpt(text.String())}
		}
		if p.cfg.ReasoningField != "" && (reasoning.Len() > 0 || len(a.ToolCalls) > 0) {
			// Servers that interleave reasoning (DeepSeek's thinking mode)
			// want the field back on every tool-calling turn, empty or not.
			a.SetExtraFields(map[string]any{p.cfg.ReasoningField: reasoning.String()})
		}
		if text.Len() == 0 && len(a.ToolCalls) == 0 {
			return nil
		}
		out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: a})
	default:
		var parts []sdk.ChatCompletionContentPartUnionParam
		for _, part := range m.Parts {
			switch part.Type {
			case llm.PartText:
				if strings.TrimSpace(part.Text) == "" {
					continue
				}
				parts = append(parts, sdk.TextContentPart(llm.ValidText(part.Text)))
			case llm.PartFile:
				if c, ok := chatFile(part); ok {
					parts = append(parts, c)
				}
			case llm.PartToolResult:
				out = append(out, sdk.ToolMessage(llm.ToolResultText(part), p.callID(part.ToolCallID)))
				for _, a := range part.Attachments {
					if c, ok := chatFile(a); ok {
						images = append(images, c)
					}
				}
			}
		}
		if len(parts) > 0 {
			out = append(out, userMessage(parts))
		}
	}
	if len(images) > 0 {
		out = append(out, userMessage(append([]sdk.ChatCompletionContentPartUnionParam{
			sdk.TextContentPart("Attached by the tool result above:"),
		}, images...)))
	}
	return out
}

// callID is the tool-call id as the server wants it.
func (p *Chat) callID(id string) string {
	if !p.cfg.Mistral {
		return id
	}
	var b strings.Builder
	for _, r := range id {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			if b.Len() == 9 {
				break
			}
		}
	}
	for b.Len() < 9 {
		b.WriteByte('0')
	}
	return b.String()
}

// mistralTurns puts an assistant "Done." between a tool result and a user
// message that follows it, which Mistral requires.
func mistralTurns(msgs []sdk.ChatCompletionMessageParamUnion) []sdk.ChatCompletionMessageParamUnion {
	out := make([]sdk.ChatCompletionMessageParamUnion, 0, len(msgs))
	for i, m := range msgs {
		out = append(out, m)
		if m.OfTool != nil && i+1 < len(msgs) && msgs[i+1].OfUser != nil {
			out = append(out, sdk.AssistantMessage("Done."))
		}
	}
	return out
}

// userMessage sends text-only content as a plain string, which every
// compatible server understands.
func userMessage(parts []sdk.ChatCompletionContentPartUnionParam) sdk.ChatCompletionMessageParamUnion {
	var text []string
	for _, p := range parts {
		if p.OfText == nil {
			return sdk.UserMessage(parts)
		}
		text = append(text, p.OfText.Text)
	}
	return sdk.UserMessage(strings.Join(text, "\n"))
}

func chatFile(p llm.Part) (sdk.ChatCompletionContentPartUnionParam, bool) {
	if llm.IsImage(p) {
		return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: llm.DataURL(p)}), true
	}
	if p.MediaType == "application/pdf" && len(p.Data) > 0 {
		name := p.Filename
		if name == "" {
			name = "file.pdf"
		}
		return sdk.FileContentPart(sdk.ChatCompletionContentPartFileFileParam{
			FileData: param.NewOpt(llm.DataURL(p)), Filename: param.NewOpt(name),
		}), true
	}
	return sdk.ChatCompletionContentPartUnionParam{}, false
}

// chatCall is a tool call being streamed, keyed by its index.
type chatCall struct {
	id, name string
	args     strings.Builder
	started  bool
	done     bool // its arguments parsed and the call was reported complete
}

// Block ids of the chat stream: it has at most one text and one reasoning
// block.
const (
	chatTextID      = "text-0"
	chatReasoningID = "reasoning-0"
)

// Stream sends req and yields its events.
func (p *Chat) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		// The SDK sends the request and reports HTTP failures; the body it
		// hands back is read here (see chatchunk.go). The SDK's stream is
		// only closed, never iterated. A plain conversation's body is
		// written directly (see chatbody.go); the options then edit it.
		var raw *http.Response
		var params sdk.ChatCompletionNewParams
		body, opts, direct := p.chatBody(req)
		if direct {
			opts = append([]option.RequestOption{option.WithRequestBody("application/json", body)}, opts...)
		} else {
			params, opts = p.buildChat(req)
		}
		stream := p.svc.NewStreaming(ctx, params, append(opts, option.WithResponseInto(&raw))...)
		defer stream.Close()
		if err := stream.Err(); err != nil || raw == nil || raw.Body == nil {
			if err == nil {
				err = errors.New("no response body")
			}
			yield(llm.Event{Type: llm.EventError, Err: classify(ctx, p.id, p.secrets.List(), err)})
			return
		}

		calls := map[int64]*chatCall{}
		var textOpen, reasoningOpen bool
		var usage llm.Usage
		var finish string
		sawUsage := false
		endReasoning := func() bool {
			if !reasoningOpen {
				return true
			}
			reasoningOpen = false
			return yield(llm.Event{Type: llm.EventReasoningEnd, ID: chatReasoningID})
		}
		events := sse.NewReader(raw.Body)
		var streamErr error
		var chunk chatChunk // reused: one allocation for the whole stream
		for {
			if !events.Next() {
				streamErr = events.Err()
				break
			}
			data := events.Data()
			if len(data) == 0 {
				continue // a named event without data
			}
			if bytes.HasPrefix(data, []byte("[DONE]")) {
				break
			}
			if err := decodeChunk(data, &chunk); err != nil {
				streamErr = fmt.Errorf("decode a stream chunk: %w", err)
				break
			}
			if chunk.Error != nil {
				// An {"error": ...} payload inside a 200 stream.
				yield(llm.Event{Type: llm.EventError, Err: llm.Classify(llm.Failure{Provider: p.id, Body: bytes.Clone(data), Secrets: p.secrets.List()})})
				return
			}
			if chunk.Usage != nil {
				usage = chatUsage(chunk.Usage)
				sawUsage = true
			}
			for _, ch := range chunk.Choices {
				if ch.Index != 0 {
					continue
				}
				d := ch.Delta
				if r := d.reasoning(); r != "" {
					if !reasoningOpen {
						reasoningOpen = true
						if !yield(llm.Event{Type: llm.EventReasoningStart, ID: chatReasoningID}) {
							return
						}
					}
					if !yield(llm.Event{Type: llm.EventReasoningDelta, ID: chatReasoningID, Text: r}) {
						return
					}
				}
				if d.Content != "" {
					if !endReasoning() {
						return
					}
					if !textOpen {
						textOpen = true
						if !yield(llm.Event{Type: llm.EventTextStart, ID: chatTextID}) {
							return
						}
					}
					if !yield(llm.Event{Type: llm.EventTextDelta, ID: chatTextID, Text: d.Content}) {
						return
					}
				}
				for _, tc := range d.ToolCalls {
					if !toolDelta(calls, tc, yield) {
						return
					}
				}
				if ch.FinishReason != "" {
					finish = ch.FinishReason
				}
			}
		}
		if streamErr != nil || ctx.Err() != nil {
			yield(llm.Event{Type: llm.EventError, Err: classify(ctx, p.id, p.secrets.List(), streamErr)})
			return
		}
		if finish == "" && !sawUsage {
			// Neither a finish reason nor the closing usage: the stream
			// was cut short, even though the connection closed cleanly.
			yield(llm.Event{Type: llm.EventError, Err: streamEnded(p.id)})
			return
		}
		if !endReasoning() {
			return
		}
		if textOpen && !yield(llm.Event{Type: llm.EventTextEnd, ID: chatTextID}) {
			return
		}
		idx := make([]int64, 0, len(calls))
		for i := range calls {
			idx = append(idx, i)
		}
		slices.Sort(idx)
		for _, i := range idx {
			c := calls[i]
			if c.done {
				continue
			}
			if !c.started && !startCall(c, i, yield) {
				return
			}
			args := c.args.String()
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			if !yield(llm.Event{Type: llm.EventToolCall, ID: c.id, ToolName: c.name, Input: args}) {
				return
			}
		}
		yield(llm.Event{Type: llm.EventFinish, Reason: chatReason(finish, len(calls) > 0), Usage: usage})
	}
}

// toolDelta merges one tool-call fragment: id and name come from the first
// fragment that has them and are never overwritten; arguments are joined.
func toolDelta(calls map[int64]*chatCall, tc chatToolCallDelta, yield func(llm.Event) bool) bool {
	c := calls[tc.Index]
	if c == nil {
		c = &chatCall{}
		calls[tc.Index] = c
	}
	if c.id == "" && tc.ID != "" {
		c.id = tc.ID
	}
	if c.name == "" && tc.Function.Name != "" {
		c.name = tc.Function.Name
	}
	if c.done {
		return true // anything after the arguments parsed is ignored
	}
	if !c.started && c.name != "" {
		if !startCall(c, tc.Index, yield) {
			return false
		}
		if !completeCall(c, c.args.String(), yield) {
			return false
		}
	}
	if a := tc.Function.Arguments; a != "" {
		c.args.WriteString(a)
		if c.started {
			if !yield(llm.Event{Type: llm.EventToolInputDelta, ID: c.id, Text: a}) {
				return false
			}
			return completeCall(c, a, yield)
		}
	}
	return true
}

// completeCall reports a started call complete once its arguments are a
// whole JSON object, so that it can run while the rest of the response
// streams in; last is the latest fragment. The stream's end completes the
// calls whose arguments never parse.
func completeCall(c *chatCall, last string, yield func(llm.Event) bool) bool {
	if c.done || !strings.HasSuffix(strings.TrimRight(last, " \t\r\n"), "}") {
		return true
	}
	args := c.args.String()
	if !strings.HasPrefix(strings.TrimSpace(args), "{") || !json.Valid([]byte(args)) {
		return true
	}
	c.done = true
	return yield(llm.Event{Type: llm.EventToolCall, ID: c.id, ToolName: c.name, Input: args})
}

func startCall(c *chatCall, index int64, yield func(llm.Event) bool) bool {
	if c.id == "" {
		// Some servers send no id at all; make one up, stable within the
		// response.
		c.id = "call_" + strconv.FormatInt(index, 10)
	}
	c.started = true
	if !yield(llm.Event{Type: llm.EventToolInputStart, ID: c.id, ToolName: c.name}) {
		return false
	}
	if c.args.Len() > 0 {
		return yield(llm.Event{Type: llm.EventToolInputDelta, ID: c.id, Text: c.args.String()})
	}
	return true
}

// reasoning is the delta's reasoning text.
func (d *chatDelta) reasoning() string {
	if d.ReasoningContent != "" {
		return d.ReasoningContent
	}
	return d.Reasoning
}

func chatReason(r string, calls bool) llm.FinishReason {
	switch r {
	case "tool_calls", "function_call":
		return llm.FinishToolCalls
	case "length":
		return llm.FinishLength
	case "content_filter":
		return llm.FinishContentFilter
	case "stop", "":
		// Some servers say "stop" (or nothing) after tool calls.
		if calls {
			return llm.FinishToolCalls
		}
		return llm.FinishStop
	}
	return llm.FinishOther
}

// chatUsage normalises usage: input without cached tokens, output without
// reasoning tokens.
func chatUsage(u *chatUsageJSON) llm.Usage {
	cached := u.PromptTokensDetails.CachedTokens
	if cached == 0 {
		cached = u.PromptCacheHitTokens
	}
	reasoning := u.CompletionTokensDetails.ReasoningTokens
	return llm.Usage{
		Input:     max(u.PromptTokens-cached, 0),
		CacheRead: cached,
		Output:    max(u.CompletionTokens-reasoning, 0),
		Reasoning: reasoning,
	}
}
