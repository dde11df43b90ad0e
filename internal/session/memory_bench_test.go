package session_test

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
)

// BenchmarkSessionMemory runs prompts through the real loop (store on disk,
// history loaded and converted every step, a model that answers at once)
// on a session that already holds 1,000 or 10,000 messages. Each
// iteration is one prompt and its answer. It reports:
//
//   - retained-MB: the live heap after a GC once the prompts are done,
//     which stays flat if nothing keeps message bodies between steps;
//
//   - alloc-MB/op: what one step allocates while it reads the history;
//
//   - rss-MB: the process's resident memory after the prompts;
//
//   - msgs/req: the messages sent to the model, to show the whole history
//     was read.
//
//     go test ./internal/session -run '^$' -bench SessionMemory -benchtime 20x
func BenchmarkSessionMemory(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchSessionMemory(b, n) })
	}
}

func benchSessionMemory(b *testing.B, n int) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "memory.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	bs := bus.New(time.Second)
	sessions := session.NewSessions(st, bs, "bench")
	model := &answerer{}
	eng, err := session.New(session.Config{Sessions: sessions, Bus: bs, Models: benchModels{model},
		Agents: session.StaticAgents{session.BuildAgent()}})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	sess, err := sessions.Create(ctx, session.CreateInput{ProjectID: "p", Title: "memory"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sessions.Import(ctx, session.Export{Info: sess, Messages: history(sess.ID, n)}, session.ImportOptions{ProjectID: "p", Replace: true}); err != nil {
		b.Fatal(err)
	}
	prompt := func(i int) {
		_, err := eng.Prompt(ctx, session.PromptInput{SessionID: sess.ID, Parts: []message.Part{session.TextPart(fmt.Sprintf("question %d", i))}})
		if err != nil {
			b.Fatal(err)
		}
	}
	prompt(-1) // warm up: the first step loads agents and prompts

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		prompt(i)
		i++
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc)/1e6, "retained-MB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(i)/1e6, "alloc-MB/op")
	b.ReportMetric(rssMB(), "rss-MB")
	b.ReportMetric(float64(model.lastLen.Load()), "msgs/req")
	if got := model.lastLen.Load(); got < int64(n) {
		b.Fatalf("the model saw %d messages, want at least %d", got, n)
	}
	debug.FreeOSMemory()
}

// history is n alternating user and assistant messages of a few hundred
// bytes each, as an import would hold them.
func history(sessionID string, n int) []message.Message {
	msgs := make([]message.Message, 0, n)
	now := time.Now().Add(-time.Hour).UnixMilli()
	var userID string
	for i := range n {
		info := message.Info{ID: id.Ascending(id.Message), SessionID: sessionID, Time: message.Time{Created: now}}
		text := fmt.Sprintf("Question %d: what does the function on line %d do, and does it need a test? ", i/2, i) + strings.Repeat("context ", 20)
		if i%2 == 0 {
			info.Role = message.RoleUser
			info.Agent = "build"
			info.Model = message.ModelRef{ProviderID: "fake", ModelID: "model"}
			userID = info.ID
		} else {
			info.Role = message.RoleAssistant
			info.ParentID = userID
			info.ProviderID, info.ModelID, info.Mode, info.Agent = "fake", "model", "build", "build"
			info.Finish = string(llm.FinishStop)
			info.Time.Completed = now
			text = fmt.Sprintf("Answer %d: it parses its input and returns an error for empty text; parse_test.go covers it. ", i/2) + strings.Repeat("detail ", 20)
		}
		part := &message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sessionID, MessageID: info.ID},
			Text: text, Time: &message.PartTime{Start: now, End: now}}
		msgs = append(msgs, message.Message{Info: info, Parts: []message.Part{part}})
	}
	return msgs
}

// rssMB is the resident set size of this process, from /proc (0 elsewhere).
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1e3
		}
	}
	return 0
}

// answerer is a model that answers every request with a short text at
// once, and remembers how many messages the last request held.
type answerer struct{ lastLen atomic.Int64 }

func (a *answerer) ID() string { return "fake" }

func (a *answerer) Stream(_ context.Context, req *llm.Request) iter.Seq[llm.Event] {
	a.lastLen.Store(int64(len(req.Messages)))
	return func(yield func(llm.Event) bool) {
		for _, ev := range []llm.Event{
			{Type: llm.EventTextStart, ID: "t"},
			{Type: llm.EventTextDelta, ID: "t", Text: "A short answer."},
			{Type: llm.EventTextEnd, ID: "t"},
			{Type: llm.EventFinish, Reason: llm.FinishStop, Usage: llm.Usage{Input: 100, Output: 5}},
		} {
			if !yield(ev) {
				return
			}
		}
	}
}

// benchModels serves every reference with one provider and a context
// window large enough that no step compacts.
type benchModels struct{ p llm.Provider }

func (m benchModels) Model(_ context.Context, ref message.ModelRef) (llm.Provider, llm.Model, error) {
	return m.p, llm.Model{ID: ref.ModelID, ProviderID: ref.ProviderID, ToolCall: true,
		Limit: llm.Limit{Context: 100_000_000, Output: 4000}}, nil
}

func (benchModels) Default(context.Context) (message.ModelRef, error) {
	return message.ModelRef{ProviderID: "fake", ModelID: "model"}, nil
}

func (benchModels) Small(context.Context, string) (message.ModelRef, bool) {
	return message.ModelRef{}, false
}
