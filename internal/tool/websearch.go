package tool

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/permission"
)

// Search is the web search service behind the websearch and codesearch
// tools: Exa's HTTP API (POST /search for web pages, POST /context for
// code). The tools exist only when the application has one.
type Search struct {
	baseURL string
	key     *llm.Secrets // behind a pointer: printing a Search shows no key
	client  *http.Client
}

// DefaultSearchURL is Exa's API address.
const DefaultSearchURL = "https://api.exa.ai"

// SearchTimeout bounds one call to the search service.
const SearchTimeout = 25 * time.Second

// maxSearchAnswer bounds the answer read from the search service.
const maxSearchAnswer = 5 << 20

// NewSearch returns the search service at baseURL (DefaultSearchURL when
// empty) with the API key key, called through client (a client of its
// own when nil). It returns nil without a key: no key, no search tools.
func NewSearch(baseURL, key string, client *http.Client) *Search {
	if key == "" {
		return nil
	}
	if baseURL == "" {
		baseURL = DefaultSearchURL
	}
	if client == nil {
		client = &http.Client{Transport: llm.ProxyTransport(os.Getenv)}
	}
	return &Search{baseURL: strings.TrimSuffix(baseURL, "/"), key: llm.NewSecrets(key), client: client}
}

// post sends body as JSON to path and decodes the answer into out. Its
// errors say what to do and never hold the key.
func (s *Search) post(ctx context.Context, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, SearchTimeout)
	defer cancel()
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.baseURL+path, bytes.NewReader(data))
	if err != nil {
		return s.redact(fmt.Errorf("search service address %s: %w", s.baseURL, err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "codeloop")
	req.Header.Set("x-api-key", s.key.List()[0])
	resp, err := s.client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("the search service did not answer within %s; try again, or a simpler query", SearchTimeout)
		}
		return s.redact(fmt.Errorf("calling the search service: %w", err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchAnswer+1))
	if err != nil {
		return s.redact(fmt.Errorf("reading the search service's answer: %w", err))
	}
	if len(raw) > maxSearchAnswer {
		return errors.New("the search service's answer is larger than 5 MB")
	}
	if resp.StatusCode != http.StatusOK {
		return s.redact(searchStatusError(resp.StatusCode, raw))
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return s.redact(fmt.Errorf("the search service's answer is not the JSON expected (%w): %.200s", err, raw))
	}
	return nil
}

// searchStatusError says what a failed call's status means for the user
// and the model.
func searchStatusError(code int, body []byte) error {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil {
		var s string
		switch {
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			msg = s
		case e.Message != "":
			msg = e.Message
		}
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("the search service refused the API key (status %d: %s); the user should check search.apiKey in the config or EXA_API_KEY", code, msg)
	case http.StatusTooManyRequests:
		return fmt.Errorf("the search service is rate limiting (status 429: %s); wait before searching again", msg)
	case http.StatusBadRequest:
		return fmt.Errorf("the search service rejected the request (status 400: %s); rewrite the query or its options", msg)
	}
	return fmt.Errorf("the search service failed (status %d: %s)", code, msg)
}

// redact keeps the key out of err's text.
func (s *Search) redact(err error) error {
	text := llm.Redact(err.Error(), s.key.List()...)
	if text == err.Error() {
		return err
	}
	return errors.New(text)
}

// Websearch defaults and bounds.
const (
	webSearchResults     = 8
	webSearchMaxResults  = 25
	webSearchContext     = 10000
	webSearchMinPerPage  = 300
	webSearchMaxContext  = 100000
	webSearchLivecrawl   = "fallback"
	webSearchDefaultType = "auto"
)

type webSearchParams struct {
	Query                string `json:"query" jsonschema:"The search query"`
	NumResults           int    `json:"numResults,omitempty" jsonschema:"Number of search results to return (default: 8)"`
	Livecrawl            string `json:"livecrawl,omitempty" jsonschema:"Live crawl mode: 'fallback' uses a live crawl when no cached copy exists (default); 'preferred' crawls live first"`
	Type                 string `json:"type,omitempty" jsonschema:"Search type: 'auto' (default), 'fast' for quick results, 'deep' for a thorough search"`
	ContextMaxCharacters int    `json:"contextMaxCharacters,omitempty" jsonschema:"Most characters of page text to return across all results (default: 10000)"`
}

func newWebSearch(env Env) Tool {
	return Must(Def[webSearchParams]{
		Traits:      Traits{Kind: KindSearch, Contained: true},
		Summary:     func(p webSearchParams, _ string) string { return p.Query },
		ID:          "websearch",
		Description: describe("websearch"),
		Schema: func(s *jsonschema.Schema) {
			prop(s, "query").MinLength = ptr(1)
			n := prop(s, "numResults")
			n.Minimum, n.Maximum = ptr(1.0), ptr(float64(webSearchMaxResults))
			l := prop(s, "livecrawl")
			l.Enum = []any{"fallback", "preferred"}
			t := prop(s, "type")
			t.Enum = []any{"auto", "fast", "deep"}
			c := prop(s, "contextMaxCharacters")
			c.Minimum, c.Maximum = ptr(1000.0), ptr(float64(webSearchMaxContext))
		},
		Truncate: env.Truncator,
		Run: func(ctx context.Context, call *Call, p webSearchParams) (*Result, error) {
			return runWebSearch(ctx, env.Search, call, p)
		},
	})
}

// exaSearchRequest is the body of POST /search.
type exaSearchRequest struct {
	Query      string      `json:"query"`
	Type       string      `json:"type"`
	NumResults int         `json:"numResults"`
	Contents   exaContents `json:"contents"`
}

type exaContents struct {
	Text      exaText `json:"text"`
	Livecrawl string  `json:"livecrawl"`
}

type exaText struct {
	MaxCharacters int `json:"maxCharacters"`
}

// exaSearchAnswer is the part of POST /search's answer the tool uses.
type exaSearchAnswer struct {
	Results []struct {
		Title         string `json:"title"`
		URL           string `json:"url"`
		PublishedDate string `json:"publishedDate"`
		Author        string `json:"author"`
		Text          string `json:"text"`
	} `json:"results"`
}

func runWebSearch(ctx context.Context, s *Search, call *Call, p webSearchParams) (*Result, error) {
	query := strings.TrimSpace(p.Query)
	if query == "" {
		return nil, errors.New("query is empty: say what to search for")
	}
	n := p.NumResults
	if n <= 0 {
		n = webSearchResults
	}
	budget := p.ContextMaxCharacters
	if budget <= 0 {
		budget = webSearchContext
	}
	req := exaSearchRequest{
		Query: query, Type: cmp.Or(p.Type, webSearchDefaultType), NumResults: n,
		Contents: exaContents{
			Text:      exaText{MaxCharacters: max(budget/n, webSearchMinPerPage)},
			Livecrawl: cmp.Or(p.Livecrawl, webSearchLivecrawl),
		},
	}
	if err := call.Ask(ctx, permission.Request{
		Permission: "websearch",
		Patterns:   []string{query},
		Always:     []string{"*"},
		Metadata: map[string]any{"query": query, "numResults": n, "livecrawl": req.Contents.Livecrawl,
			"type": req.Type, "contextMaxCharacters": budget},
	}); err != nil {
		return nil, err
	}
	var ans exaSearchAnswer
	if err := s.post(ctx, "/search", req, &ans); err != nil {
		return nil, err
	}
	title := "Web search: " + query
	if len(ans.Results) == 0 {
		return &Result{Title: title, Output: "No results found for this query. Try other words, or a broader query.",
			Metadata: map[string]any{"results": 0}}, nil
	}
	entries := make([]string, 0, len(ans.Results))
	for _, r := range ans.Results {
		var b strings.Builder
		fmt.Fprintf(&b, "## %s\nURL: %s\n", cmp.Or(strings.TrimSpace(r.Title), "(untitled)"), r.URL)
		if d := strings.TrimSpace(r.PublishedDate); d != "" {
			if len(d) > 10 && d[4] == '-' {
				d = d[:10] // the date of an ISO 8601 time
			}
			fmt.Fprintf(&b, "Published: %s\n", d)
		}
		if a := strings.TrimSpace(r.Author); a != "" {
			fmt.Fprintf(&b, "Author: %s\n", a)
		}
		if t := strings.TrimSpace(r.Text); t != "" {
			b.WriteString("\n" + t)
		}
		entries = append(entries, strings.TrimRight(b.String(), "\n"))
	}
	return &Result{Title: title, Output: strings.Join(entries, "\n\n"),
		Metadata: map[string]any{"results": len(ans.Results)}}, nil
}
