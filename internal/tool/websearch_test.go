package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
)

const exaTestKey = "exa-test-key-0123456789"

// exaRequest is one request the fake search service received.
type exaRequest struct {
	Method, Path, Key, ContentType string
	Body                           map[string]any
}

// exaServer is an httptest server speaking Exa's API: POST /search and
// POST /context with the x-api-key header, answering with the JSON the
// real service sends (fields it sends that the tools ignore included).
type exaServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []exaRequest
	// answer, when set, replaces the normal answers.
	answer func(w http.ResponseWriter, r *http.Request)
}

func newExaServer(t *testing.T) *exaServer {
	s := &exaServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := exaRequest{Method: r.Method, Path: r.URL.Path, Key: r.Header.Get("x-api-key"), ContentType: r.Header.Get("Content-Type")}
		if err := json.Unmarshal(raw, &req.Body); err != nil {
			http.Error(w, `{"error":"body is not JSON"}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		if s.answer != nil {
			s.answer(w, r)
			return
		}
		if req.Key != exaTestKey {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"requestId":"r0","error":"Invalid API key"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/search":
			fmt.Fprint(w, `{
  "requestId": "b5947044c4b78efa9552a7c89b306d95",
  "resolvedSearchType": "neural",
  "results": [
    {"id": "https://go.dev/doc/go1.26", "title": "Go 1.26 Release Notes", "url": "https://go.dev/doc/go1.26",
     "publishedDate": "2026-02-10T00:00:00.000Z", "author": "The Go Authors", "favicon": "https://go.dev/favicon.ico",
     "text": "Go 1.26 adds new(expr) and a faster garbage collector."},
    {"id": "https://example.org/post", "title": "", "url": "https://example.org/post", "publishedDate": null, "author": null,
     "text": "An untitled post."}
  ],
  "searchType": "neural",
  "costDollars": {"total": 0.005}
}`)
		case "/context":
			fmt.Fprint(w, `{"requestId": "req_1", "query": "x",
  "response": "## Client timeouts\n\n`+"```go\\nc := &http.Client{Timeout: 10 * time.Second}\\n```"+`\n\nSource: https://pkg.go.dev/net/http",
  "resultsCount": 3, "costDollars": "0.0025", "searchTime": 812.5, "outputTokens": 120}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *exaServer) requests() []exaRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// searchEnv is a test Env with the search service at url and key.
func searchEnv(t *testing.T, url, key string) Env {
	env := testEnv(t)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	env.Search = NewSearch(url, key, client)
	return env
}

func TestSearchToolsNeedAService(t *testing.T) {
	t.Parallel()
	if NewSearch("https://api.exa.ai", "", nil) != nil {
		t.Error("a search service without a key")
	}
	for _, tt := range []struct {
		name string
		env  Env
		want bool
	}{
		{"no service", testEnv(t), false},
		{"no key", Env{Search: NewSearch("", "", nil)}, false},
		{"a key", searchEnv(t, "", exaTestKey), true},
	} {
		var ids []string
		for _, tl := range NewRegistry(Builtins(tt.env)...).For(Filter{Model: "claude-sonnet-4-5"}) {
			ids = append(ids, tl.ID())
		}
		for _, id := range []string{"websearch", "codesearch"} {
			if slices.Contains(ids, id) != tt.want {
				t.Errorf("%s: tools %v, want %s offered: %v", tt.name, ids, id, tt.want)
			}
		}
	}
	if s := fmt.Sprintf("%+v %v", *NewSearch("", exaTestKey, nil), NewSearch("", exaTestKey, nil)); strings.Contains(s, exaTestKey) {
		t.Errorf("printing a search service shows its key: %s", s)
	}
}

func TestWebSearch(t *testing.T) {
	t.Parallel()
	srv := newExaServer(t)
	env := searchEnv(t, srv.URL, exaTestKey)
	tests := []struct {
		name      string
		input     map[string]any
		wantBody  map[string]any
		wantTitle string
	}{
		{"defaults", map[string]any{"query": "  go 1.26 release notes "},
			map[string]any{"query": "go 1.26 release notes", "type": "auto", "numResults": 8.0,
				"contents": map[string]any{"text": map[string]any{"maxCharacters": 1250.0}, "livecrawl": "fallback"}},
			"Web search: go 1.26 release notes"},
		{"options", map[string]any{"query": "go 1.26", "numResults": 4, "type": "deep", "livecrawl": "preferred", "contextMaxCharacters": 20000},
			map[string]any{"query": "go 1.26", "type": "deep", "numResults": 4.0,
				"contents": map[string]any{"text": map[string]any{"maxCharacters": 5000.0}, "livecrawl": "preferred"}},
			"Web search: go 1.26"},
		{"small budget", map[string]any{"query": "q", "numResults": 25, "contextMaxCharacters": 1000},
			map[string]any{"query": "q", "type": "auto", "numResults": 25.0,
				"contents": map[string]any{"text": map[string]any{"maxCharacters": 300.0}, "livecrawl": "fallback"}},
			"Web search: q"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call, asker := newCall(t, "websearch", t.TempDir(), tt.input)
			res, err := toolByID(t, env, "websearch").Run(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			got := srv.requests()[i]
			if got.Method != http.MethodPost || got.Path != "/search" || got.Key != exaTestKey || got.ContentType != "application/json" {
				t.Errorf("request %s %s key %q type %q", got.Method, got.Path, got.Key, got.ContentType)
			}
			if a, b := fmt.Sprint(got.Body), fmt.Sprint(tt.wantBody); a != b {
				t.Errorf("body\n got %s\nwant %s", a, b)
			}
			want := "## Go 1.26 Release Notes\nURL: https://go.dev/doc/go1.26\nPublished: 2026-02-10\nAuthor: The Go Authors\n\n" +
				"Go 1.26 adds new(expr) and a faster garbage collector.\n\n" +
				"## (untitled)\nURL: https://example.org/post\n\nAn untitled post."
			if res.Output != want {
				t.Errorf("output\n%s\nwant\n%s", res.Output, want)
			}
			if res.Title != tt.wantTitle || res.Metadata["results"] != 2 {
				t.Errorf("title %q metadata %v", res.Title, res.Metadata)
			}
			r := asker.requests("websearch")
			if len(r) != 1 || !slices.Equal(r[0].Patterns, []string{tt.wantBody["query"].(string)}) || !slices.Equal(r[0].Always, []string{"*"}) {
				t.Errorf("permission requests %+v", asker.asked)
			}
		})
	}
}

func TestCodeSearch(t *testing.T) {
	t.Parallel()
	srv := newExaServer(t)
	env := searchEnv(t, srv.URL+"/", exaTestKey) // a trailing slash is dropped
	for i, tt := range []struct {
		input  map[string]any
		tokens float64
	}{
		{map[string]any{"query": "Go net/http client timeouts"}, 5000},
		{map[string]any{"query": "Go net/http client timeouts", "tokensNum": 12000}, 12000},
	} {
		call, asker := newCall(t, "codesearch", t.TempDir(), tt.input)
		res, err := toolByID(t, env, "codesearch").Run(context.Background(), call)
		if err != nil {
			t.Fatal(err)
		}
		got := srv.requests()[i]
		if got.Method != http.MethodPost || got.Path != "/context" || got.Key != exaTestKey {
			t.Errorf("request %s %s key %q", got.Method, got.Path, got.Key)
		}
		if fmt.Sprint(got.Body) != fmt.Sprint(map[string]any{"query": "Go net/http client timeouts", "tokensNum": tt.tokens}) {
			t.Errorf("body %v", got.Body)
		}
		want := "## Client timeouts\n\n```go\nc := &http.Client{Timeout: 10 * time.Second}\n```\n\nSource: https://pkg.go.dev/net/http"
		if res.Output != want || res.Title != "Code search: Go net/http client timeouts" || res.Metadata["results"] != 3 {
			t.Errorf("result %q %q %v", res.Title, res.Output, res.Metadata)
		}
		if r := asker.requests("codesearch"); len(r) != 1 || r[0].Patterns[0] != "Go net/http client timeouts" {
			t.Errorf("permission requests %+v", asker.asked)
		}
	}
	for _, input := range []map[string]any{{"query": "x", "tokensNum": 999}, {"query": "x", "tokensNum": 50001}, {"query": ""}} {
		call, _ := newCall(t, "codesearch", t.TempDir(), input)
		var invalid *InvalidArgumentsError
		if _, err := toolByID(t, env, "codesearch").Run(context.Background(), call); !errors.As(err, &invalid) {
			t.Errorf("%v: %v, want invalid arguments", input, err)
		}
	}
}

func TestSearchFailures(t *testing.T) {
	t.Parallel()
	srv := newExaServer(t)
	answer := func(status int, body string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}
	}
	tests := []struct {
		name   string
		key    string
		answer func(http.ResponseWriter, *http.Request)
		want   string // in the error; "" for a successful empty result
	}{
		{"refused key", "exa-wrong-key-0123456789", nil, "refused the API key (status 401: Invalid API key); the user should check search.apiKey"},
		{"rate limit", exaTestKey, answer(429, `{"error":"You have exceeded your rate limit"}`), "rate limiting (status 429: You have exceeded your rate limit)"},
		{"bad request", exaTestKey, answer(400, `{"message":"numResults too large"}`), "rejected the request (status 400: numResults too large)"},
		{"server error", exaTestKey, answer(502, `<html>bad gateway</html>`), "failed (status 502: <html>bad gateway</html>)"},
		{"not json", exaTestKey, answer(200, `<html>hello</html>`), "not the JSON expected"},
		{"no results", exaTestKey, answer(200, `{"requestId":"r","results":[]}`), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.answer = tt.answer
			call, _ := newCall(t, "websearch", t.TempDir(), map[string]any{"query": "anything"})
			res, err := toolByID(t, searchEnv(t, srv.URL, tt.key), "websearch").Run(context.Background(), call)
			if tt.want == "" {
				if err != nil || !strings.HasPrefix(res.Output, "No results found") {
					t.Fatalf("%v %+v", err, res)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), tt.key) {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
	srv.answer = nil

	// A denied permission sends nothing.
	before := len(srv.requests())
	call, asker := newCall(t, "websearch", t.TempDir(), map[string]any{"query": "secret project"})
	asker.rules = permission.Ruleset{{Permission: "websearch", Pattern: "*", Action: permission.Deny}}
	if _, err := toolByID(t, searchEnv(t, srv.URL, exaTestKey), "websearch").Run(context.Background(), call); err == nil {
		t.Error("a denied search ran")
	}
	if len(srv.requests()) != before {
		t.Error("a denied search reached the service")
	}
}
