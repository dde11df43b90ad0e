package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestRunSearchTools has the model call websearch and codesearch with the
// real binary against a fake of the search service's HTTP API: the calls
// carry the configured key, and what the service answers reaches the
// model. Without a key the tools are not offered at all.
func TestRunSearchTools(t *testing.T) {
	const key = "exa-e2e-key-0123456789"
	var mu sync.Mutex
	var got []string // "METHOD /path key query"
	exa := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query string `json:"query"`
		}
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &body)
		mu.Lock()
		got = append(got, fmt.Sprintf("%s %s %s %s", r.Method, r.URL.Path, r.Header.Get("x-api-key"), body.Query))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/search":
			fmt.Fprint(w, `{"requestId":"r1","results":[{"id":"u","title":"Go 1.26 is released","url":"https://go.dev/blog/go1.26","publishedDate":"2026-02-10T00:00:00.000Z","author":null,"text":"Go 1.26 is out."}]}`)
		case "/context":
			fmt.Fprint(w, `{"requestId":"r2","query":"q","response":"Use http.Client{Timeout: d}.","resultsCount":1,"costDollars":"0.001","searchTime":10,"outputTokens":9}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer exa.Close()

	script := `
step
call call_1 websearch {"query":"go 1.26 release"}
finish tool-calls
step
call call_2 codesearch {"query":"go http client timeout"}
finish tool-calls
step
text Go 1.26 is out; set Client.Timeout.
finish stop
`
	p := newProject(t, script, nil)
	p.writeConfig(fmt.Sprintf(`{"search": {"apiKey": %q, "baseURL": %q}}`, key, exa.URL))
	stdout, stderr, code := p.run("run", "what is new in go, and how do I time out a request?")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	want := []string{"POST /search " + key + " go 1.26 release", "POST /context " + key + " go http client timeout"}
	if !slices.Equal(got, want) {
		t.Errorf("the search service got %q, want %q", got, want)
	}
	reqs := p.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3\n%s", len(reqs), stderr)
	}
	if tools := parseChat(t, reqs[0].Body).tools(); !slices.Contains(tools, "websearch") || !slices.Contains(tools, "codesearch") {
		t.Errorf("the tools offered: %v", tools)
	}
	if r, _ := parseChat(t, reqs[1].Body).result("call_1"); !strings.Contains(r, "## Go 1.26 is released\nURL: https://go.dev/blog/go1.26") {
		t.Errorf("the web search result that reached the model: %q", r)
	}
	if r, _ := parseChat(t, reqs[2].Body).result("call_2"); r != "Use http.Client{Timeout: d}." {
		t.Errorf("the code search result that reached the model: %q", r)
	}

	// No key, no tools: the same config without apiKey (and no EXA_API_KEY).
	q := newProject(t, "step\ntext No search here.\nfinish stop\n", nil)
	q.writeConfig(fmt.Sprintf(`{"search": {"baseURL": %q}}`, exa.URL))
	if stdout, stderr, code := q.run("run", "search the web"); code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if tools := parseChat(t, q.model.Requests()[0].Body).tools(); slices.Contains(tools, "websearch") || slices.Contains(tools, "codesearch") || len(tools) == 0 {
		t.Errorf("without a key the tools offered are %v", tools)
	}
}
