package openai

import (
	"context"
	"encoding/json"
	"iter"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/codeloop/codeloop/internal/llm"
)

// Responses streams through the Responses API.
type Responses struct {
	id      string
	svc     responses.ResponseService
	secrets *llm.Secrets
}

// NewResponses returns a Responses API provider. It never touches the
// network.
func NewResponses(cfg Config) *Responses {
	return &Responses{id: cfg.id(), svc: responses.NewResponseService(cfg.options()...), secrets: llm.NewSecrets(cfg.APIKey)}
}

// ID returns the provider id.
func (p *Responses) ID() string { return p.id }

// buildResponses converts a request to Responses API parameters.
func buildResponses(req *llm.Request) responses.ResponseNewParams {
	o := req.Options
	p := responses.ResponseNewParams{
		Model: shared.ResponsesModel(req.Model),
		Store: param.NewOpt(false),
	}
	var input responses.ResponseInputParam
	for _, s := range req.System {
		if strings.TrimSpace(s) == "" {
			continue
		}
		input = append(input, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
			Role:    responses.EasyInputMessageRoleSystem,
			Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(llm.ValidText(s))},
		}})
	}
	for _, m := range llm.DropEmpty(req.Messages) {
		input = append(input, responsesItems(m)...)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	for _, t := range req.Tools {
		var schema map[string]any
		_ = json.Unmarshal(t.Schema, &schema)
		ft := &responses.FunctionToolParam{Name: t.Name, Parameters: schema, Strict: param.NewOpt(false)}
		if t.Description != "" {
			ft.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: ft})
	}
	if len(p.Tools) > 0 && o.ToolChoice != "" {
		switch o.ToolChoice {
		case "auto", "none", "required":
			p.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptions(o.ToolChoice))}
		default:
			p.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: o.ToolChoice}}
		}
	}
	if o.MaxOutputTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(o.MaxOutputTokens))
	}
	if o.Temperature != nil {
		p.Temperature = param.NewOpt(*o.Temperature)
	}
	if o.TopP != nil {
		p.TopP = param.NewOpt(*o.TopP)
	}
	if o.CacheKey != "" {
		p.PromptCacheKey = param.NewOpt(o.CacheKey)
	}
	if r := o.Reasoning; r != nil {
		switch {
		case r.Disabled:
			p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort("none")}
		default:
			p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(r.Effort), Summary: shared.ReasoningSummary(r.Summary)}
			// Without server-side storage, reasoning survives to the next
			// turn only as encrypted content the client sends back.
			p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
		}
	}
	return p
}

// responsesItems maps one message to input items, in order.
func responsesItems(m llm.Message) []responses.ResponseInputItemUnionParam {
	var items []responses.ResponseInputItemUnionParam
	switch m.Role {
	case llm.RoleUser:
		var content responses.ResponseInputMessageContentListParam
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				if strings.TrimSpace(p.Text) == "" {
					continue
				}
				content = append(content, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: llm.ValidText(p.Text)}})
			case llm.PartFile:
				if c, ok := inputFile(p); ok {
					content = append(content, c)
				}
			case llm.PartToolResult:
				items = append(items, functionOutput(p))
			}
		}
		if len(content) > 0 {
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role:    responses.EasyInputMessageRoleUser,
				Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: content},
			}})
		}
	case llm.RoleAssistant:
		var text strings.Builder
		flush := func() {
			if text.Len() == 0 {
				return
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role:    responses.EasyInputMessageRoleAssistant,
				Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(text.String())},
			}})
			text.Reset()
		}
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				text.WriteString(llm.ValidText(p.Text))
			case llm.PartReasoning:
				// Only OpenAI's own encrypted reasoning can go back.
				if p.Encrypted == "" || p.ItemID == "" {
					continue
				}
				flush()
				r := &responses.ResponseReasoningItemParam{ID: p.ItemID, EncryptedContent: param.NewOpt(p.Encrypted),
					Summary: []responses.ResponseReasoningItemSummaryParam{}}
				if p.Text != "" {
					r.Summary = append(r.Summary, responses.ResponseReasoningItemSummaryParam{Text: llm.ValidText(p.Text)})
				}
				items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: r})
			case llm.PartToolCall:
				flush()
				items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
					CallID: p.ToolCallID, Name: p.ToolName, Arguments: string(llm.ToolInput(p.Input)),
				}})
			}
		}
		flush()
	case llm.RoleTool:
		for _, p := range m.Parts {
			if p.Type == llm.PartToolResult {
				items = append(items, functionOutput(p))
			}
		}
	}
	return items
}

func inputFile(p llm.Part) (responses.ResponseInputContentUnionParam, bool) {
	if llm.IsImage(p) {
		return responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
			ImageURL: param.NewOpt(llm.DataURL(p)), Detail: responses.ResponseInputImageDetailAuto,
		}}, true
	}
	if p.MediaType == "application/pdf" {
		f := &responses.ResponseInputFileParam{}
		if p.URL != "" && !strings.HasPrefix(p.URL, "data:") {
			f.FileURL = param.NewOpt(p.URL)
		} else {
			f.FileData = param.NewOpt(llm.DataURL(p))
			name := p.Filename
			if name == "" {
				name = "file.pdf"
			}
			f.Filename = param.NewOpt(name)
		}
		return responses.ResponseInputContentUnionParam{OfInputFile: f}, true
	}
	return responses.ResponseInputContentUnionParam{}, false
}

func functionOutput(p llm.Part) responses.ResponseInputItemUnionParam {
	out := &responses.ResponseInputItemFunctionCallOutputParam{CallID: param.NewOpt(p.ToolCallID)}
	var images responses.ResponseFunctionCallOutputItemListParam
	for _, a := range p.Attachments {
		if llm.IsImage(a) {
			images = append(images, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
				ImageURL: param.NewOpt(llm.DataURL(a)), Detail: responses.ResponseInputImageContentDetailAuto,
			}})
		}
	}
	if len(images) == 0 {
		out.Output = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(llm.ToolResultText(p))}
	} else {
		list := responses.ResponseFunctionCallOutputItemListParam{{OfInputText: &responses.ResponseInputTextContentParam{Text: llm.ToolResultText(p)}}}
		out.Output = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: append(list, images...)}
	}
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: out}
}

// respCall is a function call being streamed.
type respCall struct {
	callID, name, itemID string
	args                 strings.Builder
	done                 string // the arguments from function_call_arguments.done
}

// Stream sends req and yields its events.
func (p *Responses) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		stream := p.svc.NewStreaming(ctx, buildResponses(req), requestOptions(req.Options)...)
		defer stream.Close()

		calls := map[string]*respCall{} // by item id
		open := map[string]llm.EventType{}
		summaries := map[string]int64{} // reasoning item → last summary index seen
		sawCall := false
		var final *responses.Response
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "response.output_item.added":
				it := ev.Item
				switch it.Type {
				case "message":
					open[it.ID] = llm.EventTextStart
					if !yield(llm.Event{Type: llm.EventTextStart, ID: it.ID}) {
						return
					}
				case "reasoning":
					open[it.ID] = llm.EventReasoningStart
					summaries[it.ID] = -1
					if !yield(llm.Event{Type: llm.EventReasoningStart, ID: it.ID}) {
						return
					}
				case "function_call":
					calls[it.ID] = &respCall{callID: it.CallID, name: it.Name, itemID: it.ID}
					if !yield(llm.Event{Type: llm.EventToolInputStart, ID: it.CallID, ToolName: it.Name}) {
						return
					}
				}
			case "response.output_text.delta":
				if ev.Delta != "" && !yield(llm.Event{Type: llm.EventTextDelta, ID: ev.ItemID, Text: ev.Delta}) {
					return
				}
			case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
				text := ev.Delta
				if ev.Type == "response.reasoning_summary_text.delta" {
					if last := summaries[ev.ItemID]; ev.SummaryIndex != last {
						if last >= 0 {
							text = "\n\n" + text
						}
						summaries[ev.ItemID] = ev.SummaryIndex
					}
				}
				if text != "" && !yield(llm.Event{Type: llm.EventReasoningDelta, ID: ev.ItemID, Text: text}) {
					return
				}
			case "response.function_call_arguments.delta":
				if c := calls[ev.ItemID]; c != nil {
					c.args.WriteString(ev.Delta)
					if ev.Delta != "" && !yield(llm.Event{Type: llm.EventToolInputDelta, ID: c.callID, Text: ev.Delta}) {
						return
					}
				}
			case "response.function_call_arguments.done":
				if c := calls[ev.ItemID]; c != nil {
					c.done = ev.Arguments
				}
			case "response.output_item.done":
				if !p.itemDone(ev.Item, calls, open, &sawCall, yield) {
					return
				}
			case "response.completed", "response.incomplete":
				r := ev.Response
				final = &r
			case "response.failed":
				r := ev.Response
				yield(llm.Event{Type: llm.EventError, Err: llm.Classify(llm.Failure{
					Provider: p.id, Type: string(r.Error.Code), Message: r.Error.Message, Secrets: p.secrets.List(),
				})})
				return
			case "error":
				yield(llm.Event{Type: llm.EventError, Err: llm.Classify(llm.Failure{
					Provider: p.id, Type: ev.Code, Message: ev.Message, Body: []byte(ev.RawJSON()), Secrets: p.secrets.List(),
				})})
				return
			}
		}
		if err := stream.Err(); err != nil || ctx.Err() != nil {
			yield(llm.Event{Type: llm.EventError, Err: classify(ctx, p.id, p.secrets.List(), err)})
			return
		}
		if final == nil {
			yield(llm.Event{Type: llm.EventError, Err: streamEnded(p.id)})
			return
		}
		for id, kind := range open { // items the stream never closed
			end := llm.EventTextEnd
			if kind == llm.EventReasoningStart {
				end = llm.EventReasoningEnd
			}
			if !yield(llm.Event{Type: end, ID: id}) {
				return
			}
		}
		yield(llm.Event{Type: llm.EventFinish, Reason: responsesReason(final, sawCall), Usage: responsesUsage(final.Usage)})
	}
}

func (p *Responses) itemDone(it responses.ResponseOutputItemUnion, calls map[string]*respCall, open map[string]llm.EventType, sawCall *bool, yield func(llm.Event) bool) bool {
	switch it.Type {
	case "message":
		if _, ok := open[it.ID]; !ok {
			return true
		}
		delete(open, it.ID)
		return yield(llm.Event{Type: llm.EventTextEnd, ID: it.ID})
	case "reasoning":
		if _, ok := open[it.ID]; !ok {
			return true
		}
		delete(open, it.ID)
		return yield(llm.Event{Type: llm.EventReasoningEnd, ID: it.ID, ItemID: it.ID, Encrypted: it.EncryptedContent})
	case "function_call":
		c := calls[it.ID]
		if c == nil {
			c = &respCall{callID: it.CallID, name: it.Name, itemID: it.ID}
		}
		delete(calls, it.ID)
		args := c.done
		if args == "" {
			args = c.args.String()
		}
		if args == "" {
			args = it.Arguments.OfString
		}
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		if c.callID == "" {
			c.callID = it.CallID
		}
		if c.name == "" {
			c.name = it.Name
		}
		*sawCall = true
		return yield(llm.Event{Type: llm.EventToolCall, ID: c.callID, ToolName: c.name, Input: args, ItemID: c.itemID})
	}
	return true
}

func responsesReason(r *responses.Response, sawCall bool) llm.FinishReason {
	switch r.IncompleteDetails.Reason {
	case "max_output_tokens":
		return llm.FinishLength
	case "content_filter":
		return llm.FinishContentFilter
	case "":
	default:
		return llm.FinishOther
	}
	if sawCall {
		return llm.FinishToolCalls
	}
	if r.Status == "completed" || r.Status == "" {
		return llm.FinishStop
	}
	return llm.FinishOther
}

// responsesUsage normalises usage: input without cached tokens, output
// without reasoning tokens.
func responsesUsage(u responses.ResponseUsage) llm.Usage {
	cached := u.InputTokensDetails.CachedTokens
	written := u.InputTokensDetails.CacheWriteTokens
	reasoning := u.OutputTokensDetails.ReasoningTokens
	return llm.Usage{
		Input:      max(u.InputTokens-cached-written, 0),
		CacheRead:  cached,
		CacheWrite: written,
		Output:     max(u.OutputTokens-reasoning, 0),
		Reasoning:  reasoning,
	}
}
