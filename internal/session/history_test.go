package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// echoModel answers from the request alone, so that one session played
// twice asks the same questions both times. It records every request as
// the JSON a provider adapter would start from.
type echoModel struct {
	mu     sync.Mutex
	bodies [][]byte
	// onRequest runs for every request, numbered from 1, before it is
	// answered.
	onRequest func(n int, req *llm.Request)
}

func (m *echoModel) ID() string { return "fake" }

func (m *echoModel) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	body, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	n := len(m.bodies)
	m.mu.Unlock()
	if m.onRequest != nil {
		m.onRequest(n, req)
	}
	step := echoAnswer(n, req)
	return func(yield func(llm.Event) bool) { fakellm.Play(ctx, "fake", step, nil, yield) }
}

// echoAnswer is the answer to the n-th request: a summary for a compaction
// (a request without tools), tool calls after a user's message, text after
// tool results. The usage grows with the history, so that long histories
// overflow the context and are compacted.
func echoAnswer(n int, req *llm.Request) fakellm.Step {
	history := len(req.Messages)
	if len(req.Tools) == 0 {
		return append(fakellm.Text("s", fmt.Sprintf("Summary %d of %d messages.", n, history)),
			fakellm.Finish(llm.FinishStop, llm.Usage{Input: 400, Output: 40})...)
	}
	usage := llm.Usage{Input: int64(history) * 900, Output: 25}
	if last := req.Messages[len(req.Messages)-1]; last.Role != llm.RoleUser {
		return append(fakellm.Text("t", fmt.Sprintf("Answer %d after %d messages.", n, history)),
			fakellm.Finish(llm.FinishStop, usage)...)
	}
	var step fakellm.Step
	step = append(step, fakellm.Call(fmt.Sprintf("call_%d_a", n), "read", `{"filePath":"big.txt"}`)...)
	if n%3 == 0 {
		step = append(step, fakellm.Call(fmt.Sprintf("call_%d_b", n), "bash",
			fmt.Sprintf(`{"command":"echo step %d","description":"Print the step"}`, n))...)
	}
	return append(step, fakellm.Finish(llm.FinishToolCalls, usage)...)
}

// echoModels serves the echo model, and a scripted small model for titles.
type echoModels struct {
	main  llm.Provider
	limit llm.Limit
}

func (m echoModels) Model(_ context.Context, ref message.ModelRef) (llm.Provider, llm.Model, error) {
	model := llm.Model{ID: ref.ModelID, ProviderID: ref.ProviderID, Limit: m.limit, ToolCall: true}
	switch ref.String() {
	case "fake/model":
		return m.main, model, nil
	case "fake/small":
		return fakellm.NewScripted("fake", append(fakellm.Text("t", "A title"), fakellm.Finish(llm.FinishStop, llm.Usage{})...)), model, nil
	}
	return nil, llm.Model{}, fmt.Errorf("unknown model %s", ref)
}

func (echoModels) Default(context.Context) (message.ModelRef, error) {
	return message.ModelRef{ProviderID: "fake", ModelID: "model"}, nil
}

func (echoModels) Small(context.Context, string) (message.ModelRef, bool) {
	return message.ModelRef{ProviderID: "fake", ModelID: "small"}, true
}

// newEchoEngine returns an engine over sessions answered by model, with
// the built-in tools in work and pruning on.
func newEchoEngine(t *testing.T, sessions *Sessions, model llm.Provider, work string) *Engine {
	t.Helper()
	b := bus.New(time.Second)
	prune := true
	eng, err := New(Config{
		Sessions: sessions, Bus: b, Models: echoModels{main: model, limit: llm.Limit{Context: 60_000, Output: 4000}},
		Agents:      StaticAgents{BuildAgent()},
		Tools:       registryTools{tool.NewRegistry(tool.Builtins(tool.Env{Ripgrep: "-"})...)},
		Permissions: approval.NewService(b, nil, approval.Options{AutoApprove: true}),
		Directory:   work, Worktree: work, FlushInterval: 5 * time.Millisecond,
		Compaction: Compaction{Prune: &prune},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	return eng
}

// echoWorkspace makes a directory with a file whose reads fill the
// context quickly, so that old tool output is pruned.
func echoWorkspace(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	var sb strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&sb, "line %04d of a large file to read\n", i)
	}
	if err := os.WriteFile(filepath.Join(work, "big.txt"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return work
}

// playEcho plays prompts in a new session and returns every request sent
// to the main model, with the session's id written as SESSION.
func playEcho(t *testing.T, sessions *Sessions, work string, prompts int) ([][]byte, string) {
	t.Helper()
	ctx := context.Background()
	model := &echoModel{}
	eng := newEchoEngine(t, sessions, model, work)
	sess, err := sessions.Create(ctx, CreateInput{ProjectID: "p", Directory: work})
	if err != nil {
		t.Fatal(err)
	}
	// A hang guard, generous enough for a loaded machine running the
	// package's tests in parallel under the race detector.
	deadline, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	for i := range prompts {
		if _, err := eng.Prompt(deadline, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart(fmt.Sprintf("Question %d", i))}}); err != nil {
			t.Fatalf("prompt %d: %v", i, err)
		}
	}
	eng.Close()
	out := make([][]byte, len(model.bodies))
	for i, b := range model.bodies {
		out[i] = bytes.ReplaceAll(b, []byte(sess.ID), []byte("SESSION"))
	}
	return out, sess.ID
}

// TestHistoryRequestsMatchFullReload plays one long session, with tool
// calls, pruning and several automatic compactions, twice: reading the
// whole session at every step, and keeping the history in memory. Every
// request sent to the model must be the same, byte for byte.
func TestHistoryRequestsMatchFullReload(t *testing.T) {
	t.Parallel()
	const prompts = 40
	work := echoWorkspace(t)
	ctx := context.Background()
	open := func() *Sessions {
		st, err := store.Open(ctx, ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return NewSessions(st, nil, "test")
	}

	full := open()
	full.noHistory = true
	want, _ := playEcho(t, full, work, prompts)

	kept := open()
	got, sessionID := playEcho(t, kept, work, prompts)

	if len(got) != len(want) {
		t.Errorf("%d requests kept in memory, %d reading everything", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("request %d differs:\nkept: %s\nfull: %s", i+1, clip(string(got[i]), 4000), clip(string(want[i]), 4000))
		}
	}
	var summaries int
	for _, b := range want {
		if !bytes.Contains(b, []byte(`"tools"`)) {
			summaries++
		}
	}
	if summaries < 2 {
		t.Errorf("the session was compacted %d times; the test needs at least 2", summaries)
	}
	h := kept.hist.lookup(sessionID)
	if h == nil || h.loads != 1 {
		t.Errorf("the kept history was read from the store %d times, want once", h.loads)
	}

	// What the loop sees starts at the last compaction and equals the
	// filtered whole history.
	v, err := kept.View(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	all, err := kept.Messages(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	if v.From == "" || len(v.Stored) >= len(all)/2 {
		t.Errorf("the view holds %d of %d messages from %q; want those since the last compaction", len(v.Stored), len(all), v.From)
	}
	if a, b := mustJSON(t, v.Model), mustJSON(t, message.FilterCompacted(all)); a != b {
		t.Errorf("the view differs from the filtered history:\n%s\n%s", clip(a, 2000), clip(b, 2000))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHistorySecondWriter changes a session from a second connection to
// the database, as another codeloop process would, between two prompts of
// a running engine: the next request must carry the change.
func TestHistorySecondWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	work := echoWorkspace(t)
	path := filepath.Join(t.TempDir(), "codeloop.db")
	stA, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer stA.Close()
	stB, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer stB.Close()
	a, b := NewSessions(stA, nil, "test"), NewSessions(stB, nil, "test")

	model := &echoModel{}
	eng := newEchoEngine(t, a, model, work)
	sess, err := a.Create(ctx, CreateInput{ProjectID: "p", Directory: work})
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(text string) {
		t.Helper()
		if _, err := eng.Prompt(ctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart(text)}}); err != nil {
			t.Fatal(err)
		}
	}
	prompt("The first question")
	prompt("The second question")

	// The other process rewrites the first question and adds a turn.
	msgs, err := b.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	first := msgs[0].Parts[0].(*message.TextPart)
	first.Text = "The first question, edited elsewhere"
	if err := b.PutPart(ctx, first); err != nil {
		t.Fatal(err)
	}
	prompt("The third question")

	n := len(model.bodies)
	last := string(model.bodies[n-2]) // the step that calls the tools
	if !strings.Contains(last, "edited elsewhere") {
		t.Fatalf("the request after another process's change does not carry it:\n%s", clip(last, 3000))
	}
	if strings.Contains(last, `"The first question"`) {
		t.Fatalf("the request still carries the text another process replaced")
	}
	if h := a.hist.lookup(sess.ID); h == nil || h.loads != 2 {
		t.Errorf("the history was read %d times, want twice (at the start and after the change)", h.loads)
	}
}

// compactedSession stores, in a new session, a finished turn, an answer a
// killed process left unfinished, a completed compaction and a turn after
// it. It returns the session, the unfinished answer, the summary and the
// compaction message.
func compactedSession(t *testing.T, s *Sessions) (sess Info, unfinished, summary message.Info, compaction string) {
	t.Helper()
	ctx := context.Background()
	sess, err := s.Create(ctx, CreateInput{ProjectID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	ref := message.ModelRef{ProviderID: "fake", ModelID: "model"}
	user := func(parts ...message.Part) message.Info {
		info := message.Info{ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleUser, Agent: "build", Model: ref,
			Time: message.Time{Created: 1}}
		if err := s.PutMessage(ctx, info); err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			b := p.Base()
			b.ID, b.SessionID, b.MessageID = id.Ascending(id.Part), sess.ID, info.ID
			if err := s.PutPart(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		return info
	}
	answer := func(parent message.Info, text string, finish string, sum bool) message.Info {
		info := message.Info{ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleAssistant, ParentID: parent.ID,
			Agent: "build", ModelID: "model", ProviderID: "fake", Finish: finish, Summary: sum, Time: message.Time{Created: 2}}
		if finish != "" {
			info.Time.Completed = 3
		}
		if err := s.PutMessage(ctx, info); err != nil {
			t.Fatal(err)
		}
		p := &message.TextPart{Text: text}
		p.ID, p.SessionID, p.MessageID = id.Ascending(id.Part), sess.ID, info.ID
		if err := s.PutPart(ctx, p); err != nil {
			t.Fatal(err)
		}
		return info
	}
	u1 := user(&message.TextPart{Text: "first question"})
	answer(u1, "first answer", "stop", false)
	u2 := user(&message.TextPart{Text: "second question"})
	unfinished = answer(u2, "half an answer", "", false)
	c := user(&message.CompactionPart{Auto: true})
	summary = answer(c, "the summary", "stop", true)
	u3 := user(&message.TextPart{Text: "third question"})
	answer(u3, "third answer", "stop", false)
	return sess, unfinished, summary, c.ID
}

// TestHistoryCompactionUndone checks that a view read from a compaction
// on falls back to the whole history when that compaction stops applying
// (its summary now ends in an error).
func TestHistoryCompactionUndone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := NewSessions(st, nil, "test")
	sess, _, summary, compaction := compactedSession(t, s)

	check := func(wantFrom string) {
		t.Helper()
		v, err := s.View(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		all, err := s.Messages(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.From != wantFrom {
			t.Errorf("the view starts at %q, want %q", v.From, wantFrom)
		}
		if a, b := mustJSON(t, v.Model), mustJSON(t, message.FilterCompacted(all)); a != b {
			t.Errorf("the view differs from the filtered history:\n%s\n%s", a, b)
		}
	}
	check(compaction)
	summary.Error = message.Aborted()
	if err := s.PutMessage(ctx, summary); err != nil {
		t.Fatal(err)
	}
	check("")
	if h := s.hist.lookup(sess.ID); h.loads != 2 {
		t.Errorf("the history was read %d times, want twice", h.loads)
	}
}

// TestRecoverHiddenByCompaction checks that an answer a killed process
// left unfinished is repaired when a loop starts, even when a later
// compaction hides it from the model and the loop does not read it.
func TestRecoverHiddenByCompaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := NewSessions(st, nil, "test")
	sess, unfinished, _, _ := compactedSession(t, s)
	eng := newEchoEngine(t, s, &echoModel{}, t.TempDir())
	if _, err := eng.Prompt(ctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart("fourth question")}}); err != nil {
		t.Fatal(err)
	}
	m, err := s.Message(ctx, unfinished.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Info.Error == nil || m.Info.Time.Completed == 0 {
		t.Errorf("the unfinished answer was not repaired: %+v", m.Info)
	}
	if v, err := s.View(ctx, sess.ID); err != nil || v.From <= unfinished.ID {
		t.Errorf("the loop's view starts at %q (%v); want after the repaired message %s", v.From, err, unfinished.ID)
	}
}

// TestViewKeepsEarlierViews checks that a view taken after writes shows
// them, that a view taken before keeps what it showed, and that the
// messages the writes did not touch keep their lists of parts.
func TestViewKeepsEarlierViews(t *testing.T) {
	ctx := context.Background()
	s, sid := storedTurns(t, 40)
	v1 := viewOf(t, s, sid)
	before, _ := json.Marshal(v1.Stored)

	// Rewrite the first message's first part, and add a message.
	first := v1.Stored[0]
	text, ok := first.Parts[0].(*message.TextPart)
	if !ok {
		t.Fatalf("the first part is a %T, want a text part", first.Parts[0])
	}
	changed := *text
	changed.Text = "rewritten"
	if err := s.PutPart(ctx, &changed); err != nil {
		t.Fatal(err)
	}
	v2 := viewOf(t, s, sid)
	if after, _ := json.Marshal(v1.Stored); !bytes.Equal(after, before) {
		t.Errorf("a write changed a view taken before it")
	}
	if got := v2.Stored[0].Parts[0].(*message.TextPart).Text; got != "rewritten" {
		t.Errorf("the rewritten part reads %q in the later view", got)
	}
	for i := 1; i < len(v1.Stored); i++ {
		if unsafe.SliceData(v1.Stored[i].Parts) != unsafe.SliceData(v2.Stored[i].Parts) {
			t.Errorf("message %d was not written but its list of parts was made again", i)
			break
		}
	}

	// A message added shows in the next view.
	added := addUserMessage(t, s, sid)
	v2 = viewOf(t, s, sid)
	if len(v2.Stored) != len(v1.Stored)+1 || v2.Stored[len(v2.Stored)-1].Info.ID != added.ID {
		t.Fatalf("the view after the writes holds %d messages, want %d ending with %s", len(v2.Stored), len(v1.Stored)+1, added.ID)
	}
	if cap(v2.Stored) != len(v2.Stored) || cap(v2.Model) != len(v2.Model) {
		t.Errorf("a view's slices have room to append into: Stored %d/%d, Model %d/%d",
			len(v2.Stored), cap(v2.Stored), len(v2.Model), cap(v2.Model))
	}

	// Without writes the next view is the same.
	v3 := viewOf(t, s, sid)
	if unsafe.SliceData(v3.Stored) != unsafe.SliceData(v2.Stored) {
		t.Errorf("a view without writes in between built its messages again")
	}
	// And the history a fresh read gives is the one the writes made.
	fresh, err := NewSessions(s.store, nil, "test").View(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(fresh.Stored)
	if got, _ := json.Marshal(v3.Stored); !bytes.Equal(got, want) {
		t.Errorf("the kept history differs from a fresh read:\n got %.300s\nwant %.300s", got, want)
	}
}

// TestViewAppendsInPlace: messages added after a view are appended to
// the array it shares, not copied with every message before them, and
// the views taken before stay as they were; a write to a message a view
// holds still makes a new array.
func TestViewAppendsInPlace(t *testing.T) {
	ctx := context.Background()
	s, sid := storedTurns(t, 40)
	v1 := viewOf(t, s, sid)
	before, _ := json.Marshal(v1.Stored)
	added := addUserMessage(t, s, sid)
	part := &message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sid, MessageID: added.ID}, Text: "one more"}
	if err := s.PutPart(ctx, part); err != nil {
		t.Fatal(err)
	}
	v2 := viewOf(t, s, sid)
	if len(v2.Stored) != len(v1.Stored)+1 || v2.Stored[len(v1.Stored)].Parts[0].(*message.TextPart).Text != "one more" {
		t.Fatalf("the view after the write holds %d messages, want %d ending with the new one", len(v2.Stored), len(v1.Stored)+1)
	}
	if unsafe.SliceData(v2.Stored) != unsafe.SliceData(v1.Stored) {
		t.Errorf("a message added after the view made a new array of all the messages")
	}
	if after, _ := json.Marshal(v1.Stored); !bytes.Equal(after, before) {
		t.Errorf("a message added changed a view taken before it")
	}

	// A write to a message the views hold.
	held, _ := json.Marshal(v2.Stored)
	changed := *v2.Stored[0].Parts[0].(*message.TextPart)
	changed.Text = "rewritten"
	if err := s.PutPart(ctx, &changed); err != nil {
		t.Fatal(err)
	}
	v3 := viewOf(t, s, sid)
	if unsafe.SliceData(v3.Stored) == unsafe.SliceData(v2.Stored) {
		t.Errorf("a write to a message a view holds changed that view's array")
	}
	if after, _ := json.Marshal(v2.Stored); !bytes.Equal(after, held) {
		t.Errorf("a write changed a view taken before it")
	}
	if got := v3.Stored[0].Parts[0].(*message.TextPart).Text; got != "rewritten" {
		t.Errorf("the rewritten part reads %q", got)
	}
}

// viewOf is the session's view, failing the test on an error.
func viewOf(t *testing.T, s *Sessions, sessionID string) View {
	t.Helper()
	v, err := s.View(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// addUserMessage stores a new user message in the session and returns
// its info.
func addUserMessage(t *testing.T, s *Sessions, sessionID string) message.Info {
	t.Helper()
	added := message.Info{ID: id.Ascending(id.Message), SessionID: sessionID, Role: message.RoleUser, Agent: "build",
		Time: message.Time{Created: time.Now().UnixMilli()}}
	if err := s.PutMessage(context.Background(), added); err != nil {
		t.Fatal(err)
	}
	return added
}
