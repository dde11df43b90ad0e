package google

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"google.golang.org/genai"

	"github.com/codeloop/codeloop/internal/llm"
)

// skipSignature is the placeholder thought signature Gemini documents for
// function calls that did not come from Gemini (another model's history):
// Gemini 3 rejects a model turn whose first call carries no signature.
const skipSignature = "skip_thought_signature_validator"

// buildRequest converts a request to the SDK's contents and config.
func buildRequest(req *llm.Request) ([]*genai.Content, *genai.GenerateContentConfig) {
	o := req.Options
	cfg := &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false)}
	var sys []*genai.Part
	for _, s := range req.System {
		if strings.TrimSpace(s) != "" {
			sys = append(sys, &genai.Part{Text: llm.ValidText(s)})
		}
	}
	if len(sys) > 0 {
		cfg.SystemInstruction = &genai.Content{Parts: sys}
	}
	gemini3 := strings.Contains(req.Model, "gemini-3")
	var contents []*genai.Content
	for _, m := range llm.DropEmpty(req.Messages) {
		c := convertMessage(m, gemini3)
		if c == nil || len(c.Parts) == 0 {
			continue
		}
		if n := len(contents); n > 0 && contents[n-1].Role == c.Role {
			contents[n-1].Parts = append(contents[n-1].Parts, c.Parts...)
			continue
		}
		contents = append(contents, c)
	}

	if len(req.Tools) > 0 {
		var decls []*genai.FunctionDeclaration
		for _, t := range req.Tools {
			d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			var schema any
			if len(t.Schema) > 0 && json.Unmarshal(t.Schema, &schema) == nil {
				d.ParametersJsonSchema = schema
			}
			decls = append(decls, d)
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
		if fc := functionCalling(o.ToolChoice); fc != nil {
			cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: fc}
		}
	}
	if o.Temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*o.Temperature))
	}
	if o.TopP != nil {
		cfg.TopP = genai.Ptr(float32(*o.TopP))
	}
	if o.TopK != nil {
		cfg.TopK = genai.Ptr(float32(*o.TopK))
	}
	if o.MaxOutputTokens > 0 {
		cfg.MaxOutputTokens = int32(o.MaxOutputTokens)
	}
	if r := o.Reasoning; r != nil {
		switch {
		case r.Disabled:
			cfg.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: genai.Ptr(int32(0))}
		case r.BudgetTokens > 0:
			cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr(int32(r.BudgetTokens))}
		case r.Effort != "":
			cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: genai.ThinkingLevel(strings.ToUpper(r.Effort))}
		default:
			cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true}
		}
	}
	if len(o.Headers) > 0 || len(o.ProviderOptions) > 0 {
		cfg.HTTPOptions = &genai.HTTPOptions{}
		if len(o.Headers) > 0 {
			cfg.HTTPOptions.Headers = http.Header{}
			for k, v := range o.Headers {
				cfg.HTTPOptions.Headers.Set(k, v)
			}
		}
		if len(o.ProviderOptions) > 0 {
			cfg.HTTPOptions.ExtraBody = o.ProviderOptions
		}
	}
	return contents, cfg
}

func functionCalling(choice string) *genai.FunctionCallingConfig {
	switch choice {
	case "", "auto":
		return nil
	case "none":
		return &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}
	case "required":
		return &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}
	}
	return &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{choice}}
}

func convertMessage(m llm.Message, gemini3 bool) *genai.Content {
	switch m.Role {
	case llm.RoleAssistant:
		c := &genai.Content{Role: genai.RoleModel}
		signedCall := false
		firstCall := -1
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				c.Parts = append(c.Parts, &genai.Part{Text: llm.ValidText(p.Text), ThoughtSignature: signature(p.Signature)})
			case llm.PartReasoning:
				// Thought text is not needed again; a signature is.
				sig := signature(p.Signature)
				if sig == nil {
					continue
				}
				c.Parts = append(c.Parts, &genai.Part{Text: llm.ValidText(p.Text), Thought: true, ThoughtSignature: sig})
			case llm.PartToolCall:
				var args map[string]any
				_ = json.Unmarshal(llm.ToolInput(p.Input), &args)
				sig := signature(p.Signature)
				signedCall = signedCall || sig != nil
				if firstCall < 0 {
					firstCall = len(c.Parts)
				}
				c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{Name: p.ToolName, Args: args}, ThoughtSignature: sig})
			}
		}
		if gemini3 && firstCall >= 0 && !signedCall {
			c.Parts[firstCall].ThoughtSignature, _ = base64.RawURLEncoding.DecodeString(skipSignature)
		}
		return c
	default:
		c := &genai.Content{Role: genai.RoleUser}
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				c.Parts = append(c.Parts, &genai.Part{Text: llm.ValidText(p.Text)})
			case llm.PartFile:
				if fp := filePart(p); fp != nil {
					c.Parts = append(c.Parts, fp)
				}
			case llm.PartToolResult:
				c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{
					Name:     p.ToolName,
					Response: map[string]any{"name": p.ToolName, "content": llm.ToolResultText(p)},
				}})
				for _, a := range p.Attachments {
					if fp := filePart(a); fp != nil {
						c.Parts = append(c.Parts, fp)
					}
				}
			}
		}
		return c
	}
}

func filePart(p llm.Part) *genai.Part {
	if len(p.Data) > 0 {
		return &genai.Part{InlineData: &genai.Blob{MIMEType: p.MediaType, Data: p.Data}}
	}
	if rest, ok := strings.CutPrefix(p.URL, "data:"); ok {
		if _, b64, ok := strings.Cut(rest, ";base64,"); ok {
			if data, err := base64.StdEncoding.DecodeString(b64); err == nil {
				return &genai.Part{InlineData: &genai.Blob{MIMEType: p.MediaType, Data: data}}
			}
		}
		return nil
	}
	if p.URL != "" {
		return &genai.Part{FileData: &genai.FileData{MIMEType: p.MediaType, FileURI: p.URL}}
	}
	return nil
}

// signature decodes a thought signature as received on the wire; a value
// that is not base64 did not come from Gemini and is dropped.
func signature(s string) []byte {
	if s == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// encodeSignature is the wire form of a thought signature.
func encodeSignature(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}
