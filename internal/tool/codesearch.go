package tool

import (
	"context"
	"errors"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codeloop/codeloop/internal/permission"
)

// Codesearch bounds, in tokens of returned context.
const (
	codeSearchTokens    = 5000
	codeSearchMinTokens = 1000
	codeSearchMaxTokens = 50000
)

type codeSearchParams struct {
	Query     string `json:"query" jsonschema:"What to find code and documentation for: a library, API, framework feature or task, e.g. 'React useState hook examples' or 'Go net/http client timeouts'"`
	TokensNum int    `json:"tokensNum,omitempty" jsonschema:"Number of tokens of context to return (1000-50000, default 5000): more for a broad topic, less for one API"`
}

func newCodeSearch(env Env) Tool {
	return Must(Def[codeSearchParams]{
		Traits:      Traits{Kind: KindSearch, Contained: true},
		Summary:     func(p codeSearchParams, _ string) string { return p.Query },
		ID:          "codesearch",
		Description: describe("codesearch"),
		Schema: func(s *jsonschema.Schema) {
			prop(s, "query").MinLength = ptr(1)
			n := prop(s, "tokensNum")
			n.Minimum, n.Maximum = ptr(float64(codeSearchMinTokens)), ptr(float64(codeSearchMaxTokens))
			n.Default = []byte("5000")
		},
		Truncate: env.Truncator,
		Run: func(ctx context.Context, call *Call, p codeSearchParams) (*Result, error) {
			return runCodeSearch(ctx, env.Search, call, p)
		},
	})
}

// exaContextRequest is the body of POST /context.
type exaContextRequest struct {
	Query     string `json:"query"`
	TokensNum int    `json:"tokensNum"`
}

// exaContextAnswer is the part of POST /context's answer the tool uses:
// the code snippets and documentation found, already formatted as text.
type exaContextAnswer struct {
	Response     string `json:"response"`
	ResultsCount int    `json:"resultsCount"`
}

func runCodeSearch(ctx context.Context, s *Search, call *Call, p codeSearchParams) (*Result, error) {
	query := strings.TrimSpace(p.Query)
	if query == "" {
		return nil, errors.New("query is empty: say which library, API or task to find code for")
	}
	tokens := p.TokensNum
	if tokens <= 0 {
		tokens = codeSearchTokens
	}
	if err := call.Ask(ctx, permission.Request{
		Permission: "codesearch",
		Patterns:   []string{query},
		Always:     []string{"*"},
		Metadata:   map[string]any{"query": query, "tokensNum": tokens},
	}); err != nil {
		return nil, err
	}
	var ans exaContextAnswer
	if err := s.post(ctx, "/context", exaContextRequest{Query: query, TokensNum: tokens}, &ans); err != nil {
		return nil, err
	}
	title := "Code search: " + query
	out := strings.TrimSpace(ans.Response)
	if out == "" {
		return &Result{Title: title, Output: "No code or documentation found for this query. Name the library or API " +
			"more precisely, or try websearch.", Metadata: map[string]any{"results": 0}}, nil
	}
	return &Result{Title: title, Output: out, Metadata: map[string]any{"results": ans.ResultsCount}}, nil
}
