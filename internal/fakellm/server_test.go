package fakellm

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/anthropic"
	"github.com/codeloop/codeloop/internal/llm/openai"
)

const script = `
step
reasoning Let me think. | sig-1
text Reading the file now.
call call_1 read {"filePath":"a.txt"}
finish tool-calls input=120 output=30 reasoning=5
step
error retryable status=429 retry_after=1500ms slow down
step
text Done.
finish stop input=200 output=3
`

// summary is what a provider's stream comes to.
type summary struct {
	text, reasoning, calls string
	reason                 llm.FinishReason
	usage                  llm.Usage
	err                    *llm.Error
}

func collect(t *testing.T, p llm.Provider) summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var s summary
	for ev := range p.Stream(ctx, &llm.Request{Model: "fake", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}}) {
		switch ev.Type {
		case llm.EventTextDelta:
			s.text += ev.Text
		case llm.EventReasoningDelta:
			s.reasoning += ev.Text
		case llm.EventToolCall:
			s.calls += ev.ToolName + " " + ev.Input + ";"
		case llm.EventFinish:
			s.reason, s.usage = ev.Reason, ev.Usage
		case llm.EventError:
			s.err = ev.Err
		}
	}
	return s
}

// TestServerWireFormats plays one script to the real adapters over HTTP.
func TestServerWireFormats(t *testing.T) {
	steps, err := Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		make func(url string) llm.Provider
	}{
		{"openai-chat", func(url string) llm.Provider {
			return openai.NewChat(openai.Config{ID: "fake", BaseURL: url + "/v1", APIKey: "k"})
		}},
		{"openai-responses", func(url string) llm.Provider {
			return openai.NewResponses(openai.Config{ID: "fake", BaseURL: url + "/v1", APIKey: "k"})
		}},
		{"anthropic", func(url string) llm.Provider {
			return anthropic.New(anthropic.Config{ID: "fake", BaseURL: url, APIKey: "k"})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(steps...)
			hs := httptest.NewServer(srv)
			defer hs.Close()
			p := tt.make(hs.URL)

			first := collect(t, p)
			if first.err != nil {
				t.Fatalf("first step failed: %v", first.err)
			}
			if first.text != "Reading the file now." || first.reasoning != "Let me think." {
				t.Errorf("text %q, reasoning %q", first.text, first.reasoning)
			}
			if first.calls != `read {"filePath":"a.txt"};` || first.reason != llm.FinishToolCalls {
				t.Errorf("calls %q, reason %s", first.calls, first.reason)
			}
			want := llm.Usage{Input: 120, Output: 30, Reasoning: 5}
			if tt.name == "anthropic" { // Anthropic counts thinking as output
				want = llm.Usage{Input: 120, Output: 35}
			}
			if first.usage != want {
				t.Errorf("usage %+v, want %+v", first.usage, want)
			}

			second := collect(t, p)
			if second.err == nil || !second.err.Retryable() || second.err.StatusCode != 429 || second.err.RetryAfter != 1500*time.Millisecond {
				t.Errorf("the rate limit came out as %+v", second.err)
			}
			third := collect(t, p)
			if third.text != "Done." || third.reason != llm.FinishStop || third.err != nil {
				t.Errorf("third step %+v", third)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 || !strings.Contains(string(reqs[0].Body), `"hi"`) {
				t.Errorf("recorded %d requests: %v", len(reqs), reqs)
			}
		})
	}
}

func TestServerHang(t *testing.T) {
	srv := NewServer(Step{{Type: llm.EventTextStart, ID: "t"}, {Type: llm.EventTextDelta, ID: "t", Text: "partial"}, {Type: EventHang}})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	p := openai.NewChat(openai.Config{ID: "fake", BaseURL: hs.URL + "/v1", APIKey: "k"})
	ctx, cancel := context.WithCancel(context.Background())
	texts := make(chan string, 10)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for ev := range p.Stream(ctx, &llm.Request{Model: "fake"}) {
			if ev.Text != "" {
				texts <- ev.Text
			}
		}
	}()
	select {
	case <-srv.Hung():
	case <-time.After(10 * time.Second):
		t.Fatal("the server never hung")
	}
	if text := <-texts; text != "partial" {
		t.Errorf("received %q before the hang", text)
	}
	cancel()
	<-ended
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		"text before a step",
		"step\nfrobnicate",
		"step\nfinish stop input=x",
		"step\nerror nosuchkind boom",
		"step\nsleep forever",
		"step\ncall onlyid",
	} {
		if _, err := Parse(src); err == nil {
			t.Errorf("Parse(%q) succeeded", src)
		}
	}
}
