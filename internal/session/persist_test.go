package session

import (
	"context"
	"encoding/json"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// These tests hold the processor to its persistence contract
// (docs/session.md, "The processor") with the real store: streamed text
// reaches the store at most once per flush interval, and every structural
// change is stored before it is published, so whoever reacts to an event
// can read the same state back.

// writeLog records, through triggers, every write to the message and part
// tables of a store in the order SQLite applied them.
type writeLog struct{ st *store.Store }

func newWriteLog(t *testing.T, st *store.Store) *writeLog {
	t.Helper()
	stmts := []string{`CREATE TABLE test_write (seq INTEGER PRIMARY KEY AUTOINCREMENT,
		tbl TEXT NOT NULL, row_id TEXT NOT NULL, message_id TEXT NOT NULL, data TEXT NOT NULL)`}
	for _, tbl := range []string{"part", "message"} {
		msgCol := "NEW.message_id"
		if tbl == "message" {
			msgCol = "NEW.id"
		}
		for _, op := range []string{"INSERT", "UPDATE"} {
			stmts = append(stmts, "CREATE TRIGGER test_"+tbl+"_"+strings.ToLower(op)+" AFTER "+op+" ON "+tbl+
				" BEGIN INSERT INTO test_write (tbl, row_id, message_id, data) VALUES ('"+tbl+"', NEW.id, "+msgCol+", NEW.data); END")
		}
	}
	for _, s := range stmts {
		if _, err := st.DB().Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return &writeLog{st}
}

type write struct {
	seq                    int64
	table, id, msgID, data string
}

// since returns the writes after seq, oldest first.
func (l *writeLog) since(t *testing.T, seq int64) []write {
	rows, err := l.st.DB().Query(`SELECT seq, tbl, row_id, message_id, data FROM test_write WHERE seq > ? ORDER BY seq`, seq)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer rows.Close()
	var out []write
	for rows.Next() {
		var w write
		if err := rows.Scan(&w.seq, &w.table, &w.id, &w.msgID, &w.data); err != nil {
			t.Error(err)
			return nil
		}
		out = append(out, w)
	}
	return out
}

// last returns the sequence number of the newest write.
func (l *writeLog) last(t *testing.T) int64 {
	var n int64
	if err := l.st.DB().QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM test_write`).Scan(&n); err != nil {
		t.Error(err)
	}
	return n
}

// probed is a scripted model event and the check that runs once the
// processor has handled it (its yield returned).
type probed struct {
	ev    llm.Event
	check func()
}

// probeModel plays one scripted step per request and runs each event's
// check right after the processor took the event.
type probeModel struct {
	mu    sync.Mutex
	steps [][]probed
}

func (m *probeModel) ID() string { return "fake" }

func (m *probeModel) Stream(ctx context.Context, _ *llm.Request) iter.Seq[llm.Event] {
	m.mu.Lock()
	var step []probed
	if len(m.steps) > 0 {
		step, m.steps = m.steps[0], m.steps[1:]
	}
	m.mu.Unlock()
	return func(yield func(llm.Event) bool) {
		if step == nil {
			yield(llm.Event{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrOther, Message: "no more steps"}})
			return
		}
		for _, pe := range step {
			if ctx.Err() != nil {
				yield(llm.Event{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrCanceled, Message: "cancelled", Err: ctx.Err()}})
				return
			}
			if !yield(pe.ev) {
				return
			}
			if pe.check != nil {
				pe.check()
			}
		}
	}
}

func (m *probeModel) Model(context.Context, message.ModelRef) (llm.Provider, llm.Model, error) {
	return m, llm.Model{ID: "model", ProviderID: "fake", ToolCall: true}, nil
}

func (m *probeModel) Default(context.Context) (message.ModelRef, error) {
	return message.ModelRef{ProviderID: "fake", ModelID: "model"}, nil
}

func (m *probeModel) Small(context.Context, string) (message.ModelRef, bool) {
	return message.ModelRef{}, false
}

// gateTool runs until the test opens it or its call is cancelled.
type gateTool struct {
	open  chan struct{}
	onRun func()
}

func (g *gateTool) ID() string              { return "gate" }
func (g *gateTool) Description() string     { return "Waits until it is opened." }
func (g *gateTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }

func (g *gateTool) Run(ctx context.Context, _ *tool.Call) (*tool.Result, error) {
	if g.onRun != nil {
		g.onRun()
	}
	select {
	case <-g.open:
		return &tool.Result{Title: "opened", Output: "the gate opened"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type toolList []tool.Tool

func (l toolList) Tools(context.Context, ToolQuery) ([]tool.Tool, error) { return l, nil }

// persistRig is an engine over a real SQLite store whose writes are
// logged, with a bus subscriber that checks every event against the store.
type persistRig struct {
	t        *testing.T
	st       *store.Store
	log      *writeLog
	sessions *Sessions
	eng      *Engine
	model    *probeModel
	gate     *gateTool
	sess     Info

	stopEvents func() // waits until the subscriber has checked every event

	mu        sync.Mutex
	published map[string]string // part id → JSON of its last part.updated event
	errors    int               // session.error events seen
}

func newPersistRig(t *testing.T, interval time.Duration) *persistRig {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "persist.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &persistRig{t: t, st: st, log: newWriteLog(t, st), model: &probeModel{},
		gate: &gateTool{open: make(chan struct{})}, published: map[string]string{}}
	b := bus.New(5 * time.Second)
	r.sessions = NewSessions(st, b, "test")
	r.eng, err = New(Config{Sessions: r.sessions, Bus: b, Models: r.model, Agents: StaticAgents{BuildAgent()},
		Tools: toolList{r.gate}, FlushInterval: interval, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.sess, err = r.sessions.Create(ctx, CreateInput{ProjectID: "p", Title: "persistence"}); err != nil {
		t.Fatal(err)
	}

	sub := b.Subscribe(bus.Filter{SessionID: r.sess.ID}, 4096)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case ev := <-sub.C:
				r.checkEvent(ev)
			case <-stop:
				for {
					select {
					case ev := <-sub.C:
						r.checkEvent(ev)
					default:
						return
					}
				}
			}
		}
	}()
	var once sync.Once
	r.stopEvents = func() {
		once.Do(func() {
			close(stop)
			<-done
			sub.Close()
		})
	}
	t.Cleanup(func() {
		r.eng.Close()
		r.stopEvents()
	})
	return r
}

// messages returns what the store holds for the session.
func (r *persistRig) messages() []message.Message {
	msgs, err := r.sessions.Messages(context.Background(), r.sess.ID)
	if err != nil {
		r.t.Error(err)
	}
	return msgs
}

// storedPart returns the stored part with id, or nil.
func (r *persistRig) storedPart(id string) message.Part {
	for _, m := range r.messages() {
		for _, p := range m.Parts {
			if p.Base().ID == id {
				return p
			}
		}
	}
	return nil
}

// lastPart returns the newest stored part of type typ, or nil.
func (r *persistRig) lastPart(typ string) message.Part {
	var found message.Part
	for _, m := range r.messages() {
		for _, p := range m.Parts {
			if p.Type() == typ {
				found = p
			}
		}
	}
	return found
}

func toolRank(s message.ToolStatus) int {
	switch s {
	case message.ToolPending:
		return 0
	case message.ToolRunning:
		return 1
	}
	return 2
}

// checkEvent checks that the store already holds what ev says, or a
// later state of it.
func (r *persistRig) checkEvent(ev bus.Event) {
	t := r.t
	switch p := ev.Properties.(type) {
	case PartEvent:
		data, _ := json.Marshal(p.Part)
		r.mu.Lock()
		r.published[p.Part.Base().ID] = string(data)
		r.mu.Unlock()
		stored := r.storedPart(p.Part.Base().ID)
		if stored == nil {
			t.Errorf("%s part %s was published before it was stored", p.Part.Type(), p.Part.Base().ID)
			return
		}
		switch want := p.Part.(type) {
		case *message.ToolPart:
			got := stored.(*message.ToolPart).State
			if toolRank(got.Status) < toolRank(want.State.Status) ||
				toolRank(want.State.Status) == 2 && (got.Status != want.State.Status || got.Output != want.State.Output || got.Error != want.State.Error) {
				t.Errorf("tool part %s was published as %s (%q%q) while the store held %s (%q%q)", want.ID,
					want.State.Status, want.State.Output, want.State.Error, got.Status, got.Output, got.Error)
			}
		case *message.TextPart:
			got := stored.(*message.TextPart)
			if !strings.HasPrefix(got.Text, want.Text) || want.Time != nil && want.Time.End != 0 && (got.Time.End != want.Time.End || got.Text != want.Text) {
				t.Errorf("text part %s was published as %q (end %v) while the store held %q (end %v)", want.ID,
					want.Text, want.Time, got.Text, got.Time)
			}
		}
	case MessageEvent:
		if p.Info.Role != message.RoleAssistant || p.Info.Time.Completed == 0 {
			return
		}
		var m *message.Message
		msgs := r.messages()
		for i := range msgs {
			if msgs[i].Info.ID == p.Info.ID {
				m = &msgs[i]
			}
		}
		if m == nil || m.Info.Time.Completed != p.Info.Time.Completed || errName(m.Info.Error) != errName(p.Info.Error) {
			t.Errorf("message %s was published complete (error %q) before the store held it so", p.Info.ID, errName(p.Info.Error))
			return
		}
		r.checkComplete(*m, "when its completion was published")
	case ErrorEvent:
		r.mu.Lock()
		r.errors++
		r.mu.Unlock()
		msgs := r.messages()
		if len(msgs) == 0 {
			t.Errorf("session.error %s was published with no message stored", p.Error.Name)
			return
		}
		last := msgs[len(msgs)-1]
		if last.Info.Error == nil || last.Info.Error.Name != p.Error.Name {
			t.Errorf("session.error %s was published while the last stored message had error %q", p.Error.Name, errName(last.Info.Error))
			return
		}
		r.checkComplete(last, "when the session error was published")
	}
}

// checkComplete checks that a stored message that is complete holds no
// unfinished part, and a step-finish part unless it failed.
func (r *persistRig) checkComplete(m message.Message, when string) {
	finished := false
	for _, p := range m.Parts {
		switch p := p.(type) {
		case *message.ToolPart:
			if toolRank(p.State.Status) < 2 {
				r.t.Errorf("%s, the store held message %s's call %s as %s", when, m.Info.ID, p.CallID, p.State.Status)
			}
		case *message.TextPart:
			if p.Time == nil || p.Time.End == 0 {
				r.t.Errorf("%s, the store held message %s's text part %s unfinished", when, m.Info.ID, p.ID)
			}
		case *message.StepFinishPart:
			finished = true
		}
	}
	if m.Info.Error == nil && !finished {
		r.t.Errorf("%s, the store held message %s without its step-finish part", when, m.Info.ID)
	}
}

func errName(e *message.Error) string {
	if e == nil {
		return ""
	}
	return e.Name
}

// burst returns a text block of n deltas. Its checks say that no delta is
// written to the store (the flush interval is long), and that the block's
// start and end are stored as soon as the processor takes them.
func (r *persistRig) burst(streamID string, n int) ([]probed, string) {
	var mark int64
	var partID string
	reported := false
	var full strings.Builder
	out := []probed{{ev: llm.Event{Type: llm.EventTextStart, ID: streamID}, check: func() {
		p, _ := r.lastPart(message.TypeText).(*message.TextPart)
		if p == nil || p.Text != "" || p.Time == nil || p.Time.End != 0 {
			r.t.Errorf("after text-start the store held the text part %+v, want a new empty part", p)
			return
		}
		partID, mark = p.ID, r.log.last(r.t)
	}}}
	for i := range n {
		d := strings.Repeat(string(rune('a'+i%26)), 3)
		full.WriteString(d)
		out = append(out, probed{ev: llm.Event{Type: llm.EventTextDelta, ID: streamID, Text: d}, check: func() {
			if ws := r.log.since(r.t, mark); len(ws) != 0 && !reported {
				reported = true
				r.t.Errorf("delta %d of a burst inside the flush interval was followed by %d store writes (first: %s %s), want none",
					i+1, len(ws), ws[0].table, ws[0].data)
			}
		}})
	}
	text := full.String()
	out = append(out, probed{ev: llm.Event{Type: llm.EventTextEnd, ID: streamID}, check: func() {
		p, _ := r.storedPart(partID).(*message.TextPart)
		if p == nil || p.Text != text || p.Time.End == 0 {
			r.t.Errorf("after text-end the store held %+v, want the whole text (%d bytes) and an end time", p, len(text))
		}
	}})
	return out, text
}

// callGate returns the events of a gate call; its checks say that the call
// is stored as pending, then running, as soon as the processor takes each
// event.
func (r *persistRig) callGate(callID string) []probed {
	status := func(want message.ToolStatus) func() {
		return func() {
			p, _ := r.lastPart(message.TypeTool).(*message.ToolPart)
			if p == nil || p.CallID != callID || p.State.Status != want {
				r.t.Errorf("the store held the call as %+v, want %s", p, want)
			}
		}
	}
	return []probed{
		{ev: llm.Event{Type: llm.EventToolInputStart, ID: callID, ToolName: "gate"}, check: status(message.ToolPending)},
		{ev: llm.Event{Type: llm.EventToolInputDelta, ID: callID, Text: "{}"}},
		{ev: llm.Event{Type: llm.EventToolCall, ID: callID, ToolName: "gate", Input: "{}"}, check: status(message.ToolRunning)},
	}
}

// checkOrder checks in the write log that each assistant message was
// written complete last, after every write of its parts, and that each
// part's last published state is the one stored.
func (r *persistRig) checkOrder() {
	t := r.t
	lastMsg := map[string]write{}
	lastPart := map[string]int64{}
	for _, w := range r.log.since(t, 0) {
		if w.table == "message" {
			lastMsg[w.msgID] = w
		} else if w.seq > lastPart[w.msgID] {
			lastPart[w.msgID] = w.seq
		}
	}
	for _, m := range r.messages() {
		if m.Info.Role != message.RoleAssistant {
			continue
		}
		w := lastMsg[m.Info.ID]
		var info message.Info
		if err := json.Unmarshal([]byte(w.data), &info); err != nil || info.Time.Completed == 0 {
			t.Errorf("message %s: the last write %s is not the complete message (%v)", m.Info.ID, w.data, err)
		}
		if lastPart[m.Info.ID] > w.seq {
			t.Errorf("message %s was stored complete (write %d) before its parts were (write %d): a reader told it "+
				"completed finds parts that are not", m.Info.ID, w.seq, lastPart[m.Info.ID])
		}
		for _, p := range m.Parts {
			data, _ := json.Marshal(p)
			r.mu.Lock()
			pub, ok := r.published[p.Base().ID]
			r.mu.Unlock()
			if !ok || pub != string(data) {
				t.Errorf("part %s: stored %s, last published %s", p.Base().ID, data, pub)
			}
		}
	}
}

func (r *persistRig) prompt(text string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.eng.Prompt(ctx, PromptInput{SessionID: r.sess.ID, Parts: []message.Part{TextPart(text)}}); err != nil {
		r.t.Fatalf("prompt: %v", err)
	}
	r.eng.Close() // every write has landed and every event is out
	r.stopEvents()
}

func TestProcessorPersistence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// script returns the model's steps and checks the outcome.
		script func(r *persistRig) ([][]probed, func())
	}{
		{name: "text, a call and the step ends", script: func(r *persistRig) ([][]probed, func()) {
			text, first := r.burst("t1", 200)
			step := append(text, r.callGate("call_1")...)
			r.gate.onRun = func() {
				p, _ := r.lastPart(message.TypeTool).(*message.ToolPart)
				if p == nil || p.State.Status != message.ToolRunning {
					r.t.Errorf("the tool runs while the store holds its call as %+v", p)
				}
			}
			step = append(step, probed{ev: llm.Event{Type: llm.EventFinish, Reason: llm.FinishToolCalls, Usage: llm.Usage{Input: 5, Output: 7}},
				check: func() { close(r.gate.open) }})
			second, _ := r.burst("t2", 50)
			second = append(second, probed{ev: llm.Event{Type: llm.EventFinish, Reason: llm.FinishStop}})
			return [][]probed{step, second}, func() {
				msgs := r.messages()
				if len(msgs) != 3 {
					t.Fatalf("%d messages, want the prompt and two answers", len(msgs))
				}
				if tp, _ := msgs[1].Parts[1].(*message.TextPart); tp == nil || tp.Text != first {
					t.Errorf("first answer's text %+v", msgs[1].Parts[1])
				}
				call, _ := r.lastPart(message.TypeTool).(*message.ToolPart)
				if call == nil || call.State.Status != message.ToolCompleted || call.State.Output != "the gate opened" {
					t.Errorf("stored call %+v", call)
				}
			}
		}},
		{name: "the provider fails mid-answer", script: func(r *persistRig) ([][]probed, func()) {
			text, partial := r.burst("t1", 100)
			text = text[:len(text)-1] // the block never ends
			text = append(text, probed{ev: llm.Event{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrOther, Message: "the model broke"}}})
			return [][]probed{text}, func() {
				msgs := r.messages()
				last := msgs[len(msgs)-1]
				if last.Info.Error == nil || !strings.Contains(last.Info.Error.Error(), "the model broke") {
					t.Errorf("stored error %+v", last.Info.Error)
				}
				if tp, _ := r.lastPart(message.TypeText).(*message.TextPart); tp == nil || tp.Text != partial || tp.Time.End == 0 {
					t.Errorf("stored partial text %+v", tp)
				}
				r.mu.Lock()
				defer r.mu.Unlock()
				if r.errors != 1 {
					t.Errorf("%d session.error events, want 1", r.errors)
				}
			}
		}},
		{name: "an abort while a call runs", script: func(r *persistRig) ([][]probed, func()) {
			text, _ := r.burst("t1", 100)
			step := append(text, r.callGate("call_1")...)
			// A second call whose arguments never complete.
			step = append(step, probed{ev: llm.Event{Type: llm.EventToolInputStart, ID: "call_2", ToolName: "gate"}},
				probed{ev: llm.Event{Type: llm.EventToolInputDelta, ID: "call_2", Text: `{"a":`}})
			step = append(step, probed{ev: llm.Event{Type: llm.EventTextStart, ID: "t2"}},
				probed{ev: llm.Event{Type: llm.EventTextDelta, ID: "t2", Text: "still talking"},
					check: func() { r.eng.Cancel(r.sess.ID) }},
				probed{ev: llm.Event{Type: llm.EventTextDelta, ID: "t2", Text: " after the abort"}})
			return [][]probed{step}, func() {
				msgs := r.messages()
				last := msgs[len(msgs)-1]
				if !message.IsAborted(last.Info.Error) {
					t.Errorf("stored error %+v, want MessageAbortedError", last.Info.Error)
				}
				for _, p := range last.Parts {
					if call, ok := p.(*message.ToolPart); ok && (call.State.Status != message.ToolError || call.State.Metadata[message.MetadataInterrupted] != true) {
						t.Errorf("stored call %+v, want an interrupted error", call)
					}
				}
				if tp, _ := r.lastPart(message.TypeText).(*message.TextPart); tp == nil || tp.Text != "still talking" || tp.Time.End == 0 {
					t.Errorf("stored text %+v, want what arrived before the abort, ended", tp)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newPersistRig(t, time.Hour)
			steps, check := tt.script(r)
			r.model.steps = steps
			r.prompt("go")
			check()
			r.checkOrder()
		})
	}
}

// TestProcessorFlushesDeltas checks the other half of the debounce: text
// that keeps streaming reaches the store within the flush interval, with
// no structural event to carry it.
func TestProcessorFlushesDeltas(t *testing.T) {
	t.Parallel()
	r := newPersistRig(t, 10*time.Millisecond)
	var partID string
	step := []probed{{ev: llm.Event{Type: llm.EventTextStart, ID: "t"}, check: func() {
		partID = r.lastPart(message.TypeText).Base().ID
	}}}
	sent := ""
	for i := range 5 {
		d := strings.Repeat("x", i+1)
		sent += d
		want := sent
		step = append(step, probed{ev: llm.Event{Type: llm.EventTextDelta, ID: "t", Text: d}, check: func() {
			if !waitfor.Within(waitfor.Deadline, func() bool { // a hang guard, not a timing assertion
				p, _ := r.storedPart(partID).(*message.TextPart)
				return p != nil && p.Text == want
			}) {
				t.Errorf("the text %q never reached the store while the block streamed", want)
			}
		}})
	}
	step = append(step, probed{ev: llm.Event{Type: llm.EventTextEnd, ID: "t"}}, probed{ev: llm.Event{Type: llm.EventFinish, Reason: llm.FinishStop}})
	r.model.steps = [][]probed{step}
	r.prompt("go")
	r.checkOrder()
}
