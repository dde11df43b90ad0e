package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/codeloop/codeloop/internal/llm"
)

// defaultMaxTokens is used when the request leaves the output limit open;
// the Messages API requires one.
const defaultMaxTokens = 32000

// minBudget is the smallest thinking budget the API accepts.
const minBudget = 1024

// buildParams converts a provider-neutral request into the SDK's
// parameters, plus the per-request options (provider options merged into
// the body, extra headers).
func buildParams(req *llm.Request) (sdk.MessageNewParams, []option.RequestOption) {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: int64(req.Options.MaxOutputTokens),
	}
	if p.MaxTokens <= 0 {
		p.MaxTokens = defaultMaxTokens
	}
	for _, s := range req.System {
		if strings.TrimSpace(s) == "" {
			continue
		}
		b := sdk.TextBlockParam{Text: llm.ValidText(s)}
		if len(p.System) < 2 {
			b.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		p.System = append(p.System, b)
	}
	p.Messages = convertMessages(req.Messages)
	markCache(p.Messages)

	for _, t := range req.Tools {
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: toolParam(t)})
	}
	if len(p.Tools) > 0 {
		p.ToolChoice = toolChoice(req.Options.ToolChoice)
	}

	thinking := applyReasoning(&p, req.Options.Reasoning)
	if !thinking {
		if t := req.Options.Temperature; t != nil {
			p.Temperature = param.NewOpt(*t)
		}
		if k := req.Options.TopK; k != nil {
			p.TopK = param.NewOpt(int64(*k))
		}
	}
	if t := req.Options.TopP; t != nil && !thinking {
		p.TopP = param.NewOpt(*t)
	}

	var opts []option.RequestOption
	for k, v := range req.Options.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	for k, v := range req.Options.ProviderOptions {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	return p, opts
}

// applyReasoning sets the thinking configuration and reports whether
// thinking is on.
func applyReasoning(p *sdk.MessageNewParams, r *llm.Reasoning) bool {
	switch {
	case r == nil:
		return false
	case r.Disabled:
		p.Thinking = sdk.ThinkingConfigParamUnion{OfDisabled: &sdk.ThinkingConfigDisabledParam{}}
		return false
	case r.BudgetTokens > 0:
		budget := int64(max(r.BudgetTokens, minBudget))
		if budget >= p.MaxTokens {
			// The budget counts towards max_tokens and must leave room for
			// the answer.
			p.MaxTokens = budget + min(p.MaxTokens, defaultMaxTokens/2)
		}
		p.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: &sdk.ThinkingConfigEnabledParam{BudgetTokens: budget}}
		return true
	case r.Effort != "" && r.Effort != "none":
		p.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}}
		p.OutputConfig = sdk.OutputConfigParam{Effort: sdk.OutputConfigEffort(r.Effort)}
		return true
	}
	return false
}

func toolParam(t llm.ToolSpec) *sdk.ToolParam {
	schema := sdk.ToolInputSchemaParam{}
	var obj map[string]any
	if len(t.Schema) > 0 && json.Unmarshal(t.Schema, &obj) == nil {
		schema.Properties = obj["properties"]
		if req, ok := obj["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					schema.Required = append(schema.Required, s)
				}
			}
		}
		for k, v := range obj {
			if k == "properties" || k == "required" || k == "type" {
				continue
			}
			if schema.ExtraFields == nil {
				schema.ExtraFields = map[string]any{}
			}
			schema.ExtraFields[k] = v
		}
	}
	if schema.Properties == nil {
		schema.Properties = map[string]any{}
	}
	tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
	if t.Description != "" {
		tp.Description = param.NewOpt(t.Description)
	}
	return tp
}

func toolChoice(c string) sdk.ToolChoiceUnionParam {
	switch c {
	case "", "auto":
		return sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{}}
	case "none":
		return sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
	case "required":
		return sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
	}
	return sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{Name: c}}
}

// convertMessages maps the conversation to Messages API turns. Tool results
// travel in user turns; consecutive turns of one role are merged, as the
// API wants them to alternate.
func convertMessages(msgs []llm.Message) []sdk.MessageParam {
	var out []sdk.MessageParam
	for _, m := range llm.DropEmpty(msgs) {
		role := sdk.MessageParamRoleUser
		if m.Role == llm.RoleAssistant {
			role = sdk.MessageParamRoleAssistant
		}
		var blocks []sdk.ContentBlockParamUnion
		for _, part := range m.Parts {
			if b, ok := convertPart(part, role); ok {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, sdk.MessageParam{Role: role, Content: blocks})
	}
	return out
}

func convertPart(p llm.Part, role sdk.MessageParamRole) (sdk.ContentBlockParamUnion, bool) {
	switch p.Type {
	case llm.PartText:
		if strings.TrimSpace(p.Text) == "" {
			return sdk.ContentBlockParamUnion{}, false
		}
		return sdk.NewTextBlock(llm.ValidText(p.Text)), true
	case llm.PartFile:
		return fileBlock(p)
	case llm.PartReasoning:
		if role != sdk.MessageParamRoleAssistant {
			return sdk.ContentBlockParamUnion{}, false
		}
		if p.Redacted != "" {
			return sdk.NewRedactedThinkingBlock(p.Redacted), true
		}
		if p.Signature == "" {
			// Reasoning from another provider, or never signed: the API
			// would reject it.
			return sdk.ContentBlockParamUnion{}, false
		}
		return sdk.NewThinkingBlock(p.Signature, p.Text), true
	case llm.PartToolCall:
		return sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{
			ID:    llm.SanitizeToolID(p.ToolCallID),
			Name:  p.ToolName,
			Input: llm.ToolInput(p.Input),
		}}, true
	case llm.PartToolResult:
		tr := &sdk.ToolResultBlockParam{ToolUseID: llm.SanitizeToolID(p.ToolCallID)}
		if p.IsError {
			tr.IsError = param.NewOpt(true)
		}
		tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: llm.ToolResultText(p)}})
		for _, a := range p.Attachments {
			if img, ok := imageParam(a); ok {
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfImage: img})
			}
		}
		return sdk.ContentBlockParamUnion{OfToolResult: tr}, true
	}
	return sdk.ContentBlockParamUnion{}, false
}

func imageParam(p llm.Part) (*sdk.ImageBlockParam, bool) {
	if !llm.IsImage(p) {
		return nil, false
	}
	if p.URL != "" && !strings.HasPrefix(p.URL, "data:") {
		return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfURL: &sdk.URLImageSourceParam{URL: p.URL}}}, true
	}
	data := dataOf(p)
	if data == "" {
		return nil, false
	}
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data: data, MediaType: sdk.Base64ImageSourceMediaType(p.MediaType),
	}}}, true
}

func fileBlock(p llm.Part) (sdk.ContentBlockParamUnion, bool) {
	if img, ok := imageParam(p); ok {
		return sdk.ContentBlockParamUnion{OfImage: img}, true
	}
	switch {
	case p.MediaType == "application/pdf":
		var src sdk.DocumentBlockParamSourceUnion
		if p.URL != "" && !strings.HasPrefix(p.URL, "data:") {
			src.OfURL = &sdk.URLPDFSourceParam{URL: p.URL}
		} else {
			src.OfBase64 = &sdk.Base64PDFSourceParam{Data: dataOf(p)}
		}
		d := &sdk.DocumentBlockParam{Source: src}
		if p.Filename != "" {
			d.Title = param.NewOpt(p.Filename)
		}
		return sdk.ContentBlockParamUnion{OfDocument: d}, true
	case strings.HasPrefix(p.MediaType, "text/") && len(p.Data) > 0:
		d := &sdk.DocumentBlockParam{Source: sdk.DocumentBlockParamSourceUnion{
			OfText: &sdk.PlainTextSourceParam{Data: llm.ValidText(string(p.Data))},
		}}
		if p.Filename != "" {
			d.Title = param.NewOpt(p.Filename)
		}
		return sdk.ContentBlockParamUnion{OfDocument: d}, true
	}
	return sdk.ContentBlockParamUnion{}, false
}

// dataOf returns a file part's bytes as base64, decoding a data: URL when
// that is how the part holds them.
func dataOf(p llm.Part) string {
	if len(p.Data) > 0 {
		return base64.StdEncoding.EncodeToString(p.Data)
	}
	if rest, ok := strings.CutPrefix(p.URL, "data:"); ok {
		if _, b64, ok := strings.Cut(rest, ";base64,"); ok {
			return b64
		}
	}
	return ""
}

// markCache puts cache-control breakpoints on the last block of each of the
// last two messages that can carry one (thinking blocks cannot).
func markCache(msgs []sdk.MessageParam) {
	marked := 0
	for i := len(msgs) - 1; i >= 0 && marked < 2; i-- {
		blocks := msgs[i].Content
		for j := len(blocks) - 1; j >= 0; j-- {
			if cc := blocks[j].GetCacheControl(); cc != nil {
				*cc = sdk.NewCacheControlEphemeralParam()
				marked++
				break
			}
		}
	}
}
