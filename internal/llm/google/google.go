// Package google adapts Google's Gemini API, through the official genai
// SDK, to codeloop's provider-neutral llm.Provider: streaming, function
// calls (Gemini sends no call ids, so stable ones are made up), thinking
// with thought signatures kept on their parts and sent back, and Vertex AI
// when configured.
//
// The SDK's retries and automatic stream continuation are off: the session
// loop owns retries. Only the provider registry (internal/provider) and
// tests import this package.
package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/codeloop/codeloop/internal/llm"
)

// Config configures one Gemini provider.
type Config struct {
	// ID is the provider id used in errors; "google" when empty.
	ID         string
	APIKey     string
	BaseURL    string
	Headers    map[string]string
	HTTPClient *http.Client
	// Vertex selects Vertex AI, with Project and Location (or an API key
	// in express mode); credentials come from Application Default
	// Credentials when there is no key.
	Vertex   bool
	Project  string
	Location string
}

// Provider streams Gemini responses.
type Provider struct {
	id      string
	cfg     *Config // behind a pointer: printing a Provider shows no key
	secrets *llm.Secrets

	once   sync.Once
	models *genai.Models
	err    error
}

// New returns a provider for cfg. The SDK client (which, for Vertex AI,
// looks up credentials) is built on the first request.
func New(cfg Config) *Provider {
	id := cfg.ID
	if id == "" {
		id = "google"
	}
	return &Provider{id: id, cfg: &cfg, secrets: llm.NewSecrets(cfg.APIKey)}
}

// ID returns the provider id.
func (p *Provider) ID() string { return p.id }

func (p *Provider) client(ctx context.Context) (*genai.Models, error) {
	p.once.Do(func() {
		cc := &genai.ClientConfig{
			APIKey:     p.cfg.APIKey,
			HTTPClient: withHeaderCapture(p.cfg.HTTPClient),
			Backend:    genai.BackendGeminiAPI,
		}
		if p.cfg.Vertex {
			cc.Backend = genai.BackendVertexAI
			cc.Project, cc.Location = p.cfg.Project, p.cfg.Location
		}
		if p.cfg.BaseURL != "" {
			cc.HTTPOptions.BaseURL = p.cfg.BaseURL
		}
		if len(p.cfg.Headers) > 0 {
			cc.HTTPOptions.Headers = http.Header{}
			for k, v := range p.cfg.Headers {
				cc.HTTPOptions.Headers.Set(k, v)
			}
		}
		c, err := genai.NewClient(ctx, cc)
		if err != nil {
			p.err = err
			return
		}
		p.models = c.Models
	})
	return p.models, p.err
}

// Stream sends req and yields its events.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		models, err := p.client(ctx)
		if err != nil {
			yield(llm.Event{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrAuth, Provider: p.id,
				Message: llm.Redact("setting up the Gemini client: "+err.Error(), p.secrets.List()...)}})
			return
		}
		contents, cfg := buildRequest(req)
		// The SDK converts responses with unchecked type assertions, so a
		// malformed response panics inside it; that ends the stream with
		// an error. A panic of the caller's own loop body is left alone.
		inYield := false
		guarded := func(ev llm.Event) bool {
			inYield = true
			ok := yield(ev)
			inYield = false
			return ok
		}
		defer func() {
			if inYield {
				return
			}
			if r := recover(); r != nil {
				yield(llm.Event{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrOther, Provider: p.id,
					Message: fmt.Sprintf("malformed response: %v", r)}})
			}
		}()
		s := &state{id: p.id, yield: guarded}
		box := &headerBox{}
		for resp, err := range models.GenerateContentStream(context.WithValue(ctx, headerKey{}, box), req.Model, contents, cfg) {
			if err != nil || ctx.Err() != nil {
				guarded(llm.Event{Type: llm.EventError, Err: p.classify(ctx, err, box.get())})
				return
			}
			if !s.chunk(resp) {
				return
			}
		}
		if ctx.Err() != nil {
			guarded(llm.Event{Type: llm.EventError, Err: llm.Canceled(p.id, ctx.Err())})
			return
		}
		s.finish()
	}
}

// state follows one streamed response.
type state struct {
	id     string
	yield  func(llm.Event) bool
	open   string // "text" or "reasoning": the kind of the open block
	block  string // its id
	sig    []byte // the thought signature of the open block
	blocks int
	calls  int
	reason genai.FinishReason
	usage  *genai.GenerateContentResponseUsageMetadata
}

func (s *state) chunk(resp *genai.GenerateContentResponse) bool {
	if resp.UsageMetadata != nil {
		s.usage = resp.UsageMetadata
	}
	if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
		s.reason = genai.FinishReasonProhibitedContent
	}
	if len(resp.Candidates) == 0 {
		return true
	}
	cand := resp.Candidates[0]
	if cand.FinishReason != "" {
		s.reason = cand.FinishReason
	}
	if cand.Content == nil {
		return true
	}
	for _, part := range cand.Content.Parts {
		switch {
		case part.FunctionCall != nil:
			if !s.close() || !s.call(part) {
				return false
			}
		case part.Text != "" || len(part.ThoughtSignature) > 0:
			kind := "text"
			if part.Thought {
				kind = "reasoning"
			}
			if s.open != kind {
				if !s.close() || !s.start(kind) {
					return false
				}
			}
			if len(part.ThoughtSignature) > 0 {
				s.sig = part.ThoughtSignature
			}
			if part.Text != "" {
				t := llm.EventTextDelta
				if kind == "reasoning" {
					t = llm.EventReasoningDelta
				}
				if !s.yield(llm.Event{Type: t, ID: s.block, Text: part.Text}) {
					return false
				}
			}
		}
	}
	return true
}

func (s *state) start(kind string) bool {
	s.open = kind
	s.blocks++
	s.block = fmt.Sprintf("%s-%d", kind, s.blocks)
	s.sig = nil
	t := llm.EventTextStart
	if kind == "reasoning" {
		t = llm.EventReasoningStart
	}
	return s.yield(llm.Event{Type: t, ID: s.block})
}

func (s *state) close() bool {
	if s.open == "" {
		return true
	}
	t := llm.EventTextEnd
	if s.open == "reasoning" {
		t = llm.EventReasoningEnd
	}
	s.open = ""
	return s.yield(llm.Event{Type: t, ID: s.block, Signature: encodeSignature(s.sig)})
}

func (s *state) call(part *genai.Part) bool {
	fc := part.FunctionCall
	s.calls++
	id := fc.ID
	if id == "" {
		id = fmt.Sprintf("call_%d", s.calls)
	}
	args := "{}"
	if len(fc.Args) > 0 {
		if b, err := json.Marshal(fc.Args); err == nil {
			args = string(b)
		}
	}
	if !s.yield(llm.Event{Type: llm.EventToolInputStart, ID: id, ToolName: fc.Name}) ||
		!s.yield(llm.Event{Type: llm.EventToolInputDelta, ID: id, Text: args}) {
		return false
	}
	return s.yield(llm.Event{Type: llm.EventToolCall, ID: id, ToolName: fc.Name, Input: args, Signature: encodeSignature(part.ThoughtSignature)})
}

func (s *state) finish() {
	if !s.close() {
		return
	}
	if s.reason == "" && s.calls == 0 {
		s.yield(llm.Event{Type: llm.EventError, Err: &llm.Error{
			Kind: llm.ErrRetryable, Provider: s.id, Message: "the response stream ended before the response was complete",
		}})
		return
	}
	var u llm.Usage
	if m := s.usage; m != nil {
		cached := int64(m.CachedContentTokenCount)
		u = llm.Usage{
			Input:     max(int64(m.PromptTokenCount)-cached, 0),
			CacheRead: cached,
			Output:    int64(m.CandidatesTokenCount),
			Reasoning: int64(m.ThoughtsTokenCount),
		}
	}
	s.yield(llm.Event{Type: llm.EventFinish, Reason: finishReason(s.reason, s.calls > 0), Usage: u})
}

func finishReason(r genai.FinishReason, calls bool) llm.FinishReason {
	switch r {
	case genai.FinishReasonStop, "":
		if calls {
			return llm.FinishToolCalls
		}
		if r == "" {
			return llm.FinishUnknown
		}
		return llm.FinishStop
	case genai.FinishReasonMaxTokens:
		return llm.FinishLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety:
		return llm.FinishContentFilter
	}
	return llm.FinishOther
}

func (p *Provider) classify(ctx context.Context, err error, header http.Header) *llm.Error {
	if ctx.Err() != nil {
		return llm.Canceled(p.id, ctx.Err())
	}
	var ae genai.APIError
	if errors.As(err, &ae) {
		body, _ := json.Marshal(map[string]any{"error": ae})
		f := llm.Failure{Provider: p.id, StatusCode: ae.Code, Type: ae.Status, Message: ae.Message, Body: body,
			Header: header, Secrets: p.secrets.List()}
		if ae.Code == http.StatusOK {
			f.StatusCode = 0 // an error object inside a successful stream
		}
		return llm.Classify(f)
	}
	if strings.Contains(err.Error(), "unexpected end of JSON input") {
		// A chunk cut short: the connection broke mid-event.
		return &llm.Error{Kind: llm.ErrRetryable, Provider: p.id, Message: "the response stream was cut off", Err: err}
	}
	if strings.Contains(err.Error(), "invalid stream chunk") {
		return llm.Classify(llm.Failure{Provider: p.id, Err: err, Message: "malformed stream chunk", Secrets: p.secrets.List()})
	}
	return llm.FromError(p.id, err, p.secrets.List()...)
}

// The genai SDK keeps response headers from its errors; a transport
// wrapper records them for the stream whose context carries a headerBox, so
// retry-after headers are honoured.
type (
	headerKey struct{}
	headerBox struct {
		mu sync.Mutex
		h  http.Header
	}
	headerCapture struct{ next http.RoundTripper }
)

func (b *headerBox) get() http.Header {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.h
}

func (t headerCapture) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		if b, ok := req.Context().Value(headerKey{}).(*headerBox); ok {
			b.mu.Lock()
			b.h = resp.Header.Clone()
			b.mu.Unlock()
		}
	}
	return resp, err
}

// withHeaderCapture returns a copy of c whose transport records response
// headers.
func withHeaderCapture(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cp := *c
	next := cp.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cp.Transport = headerCapture{next: next}
	return &cp
}
