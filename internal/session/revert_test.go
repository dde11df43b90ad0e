package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/snapshot"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// childTask is a task tool that runs its prompt in a child session of the
// engine, as the real one does, and names the child in its metadata.
type childTask struct{ eng *Engine }

func (childTask) ID() string              { return TaskTool }
func (childTask) Description() string     { return "runs a sub-agent" }
func (childTask) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (c childTask) Run(ctx context.Context, call *tool.Call) (*tool.Result, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	sid, text, err := c.eng.RunChild(ctx, ChildInput{ParentID: call.SessionID, Title: "child", Prompt: in.Prompt})
	if err != nil {
		return nil, err
	}
	return &tool.Result{Title: "child", Output: text, Metadata: map[string]any{"sessionId": sid}}, nil
}

// revertHarness runs turns of a session in a real workspace with real
// snapshots, so reverting them restores real files.
type revertHarness struct {
	t        *testing.T
	work     string
	eng      *Engine
	sessions *Sessions
	model    *fakellm.Scripted
	sess     Info
	turns    []string // the user message of each turn
	states   []map[string]string
}

func newRevertHarness(t *testing.T, chain []string) *revertHarness {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	snaps, err := snapshot.Open(snapshot.Options{Dir: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	b := bus.New(time.Second)
	h := &revertHarness{t: t, work: work, sessions: NewSessions(st, b, "test")}
	var steps []fakellm.Step
	for i, kind := range chain {
		steps = append(steps, h.script(kind, i+1)...)
	}
	h.model = fakellm.NewScripted("fake", steps...)
	ct := &childTask{}
	tools := append(tool.Builtins(tool.Env{Ripgrep: "-", BeforeChange: func(ctx context.Context, call *tool.Call, paths []string) error {
		return snaps.BeforeChange(ctx, call.SessionID, paths)
	}}), ct)
	h.eng, err = New(Config{
		Sessions: h.sessions, Bus: b, Models: &testModels{main: h.model, small: fakellm.NewScripted("fake")},
		Agents: StaticAgents{BuildAgent()}, Tools: registryTools{tool.NewRegistry(tools...)},
		Permissions: approval.NewService(b, nil, approval.Options{AutoApprove: true}),
		Directory:   work, Worktree: work, Snapshots: snaps, FlushInterval: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.eng.Close)
	ct.eng = h.eng
	if h.sess, err = h.sessions.Create(ctx, CreateInput{ProjectID: "p", Directory: work, Title: "undo"}); err != nil {
		t.Fatal(err)
	}
	h.states = []map[string]string{h.files()}
	return h
}

// files reads every file of the workspace.
func (h *revertHarness) files() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(h.work, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(h.work, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

func stepOf(parts ...fakellm.Step) fakellm.Step {
	var s fakellm.Step
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

func callStep(tool, input string) fakellm.Step {
	return stepOf(fakellm.Call("c1", tool, input), fakellm.Finish(llm.FinishToolCalls, llm.Usage{Input: 10, Output: 5}))
}

func textStep(text string) fakellm.Step {
	return stepOf(fakellm.Text("t1", text), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 10, Output: 5}))
}

func jsonArgs(v map[string]string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// script is what the model answers in turn n of kind: "file" (the write
// tool changes f.txt), "bash" (a shell command through the bash tool
// changes b.txt), "test" (a bash call that changes nothing), "text" (an
// answer only), "agent" (a sub-agent writes a.txt) or "cmd" (a user's
// !command: no model).
func (h *revertHarness) script(kind string, n int) []fakellm.Step {
	content := fmt.Sprintf("%s turn %d\n", kind, n)
	switch kind {
	case "file":
		return []fakellm.Step{callStep("write", jsonArgs(map[string]string{"filePath": filepath.Join(h.work, "f.txt"), "content": content})), textStep("written")}
	case "bash":
		return []fakellm.Step{callStep("bash", jsonArgs(map[string]string{"command": "printf '" + strings.TrimSpace(content) + "\\n' > b.txt", "description": "write b.txt"})), textStep("done")}
	case "test":
		return []fakellm.Step{callStep("bash", jsonArgs(map[string]string{"command": "true", "description": "run the tests"})), textStep("tests pass")}
	case "text":
		return []fakellm.Step{textStep("just words")}
	case "agent":
		return []fakellm.Step{
			callStep(TaskTool, jsonArgs(map[string]string{"prompt": "write a.txt", "description": "write", "subagent_type": "general"})),
			callStep("write", jsonArgs(map[string]string{"filePath": filepath.Join(h.work, "a.txt"), "content": content})),
			textStep("child wrote it"),
			textStep("the sub-agent is done"),
		}
	case "cmd":
		return nil
	}
	h.t.Fatalf("unknown turn kind %q", kind)
	return nil
}

// turn runs the next turn, of kind (see script).
func (h *revertHarness) turn(kind string) {
	h.t.Helper()
	ctx := context.Background()
	n := len(h.turns) + 1
	if kind == "cmd" {
		h.shellCommand(ctx, "echo hi")
		h.states = append(h.states, h.files())
		return
	}
	msg, err := h.eng.Prompt(ctx, PromptInput{SessionID: h.sess.ID, Parts: []message.Part{TextPart(kind + " please")}})
	if err != nil {
		h.t.Fatalf("turn %d (%s): %v", n, kind, err)
	}
	if msg.Info.Error != nil {
		h.t.Fatalf("turn %d (%s) failed: %v", n, kind, msg.Info.Error)
	}
	h.turns = append(h.turns, msg.Info.ParentID)
	h.states = append(h.states, h.files())
	if kind == "text" || kind == "test" {
		if !maps.Equal(h.states[n], h.states[n-1]) {
			h.t.Fatalf("turn %d (%s) changed files", n, kind)
		}
	} else if kind != "cmd" && maps.Equal(h.states[n], h.states[n-1]) {
		h.t.Fatalf("turn %d (%s) changed no file", n, kind)
	}
}

// shellCommand records a user's !command as the client does: a user
// message with a synthetic note and an assistant message holding a
// completed bash call. It makes no checkpoint.
func (h *revertHarness) shellCommand(ctx context.Context, command string) {
	h.t.Helper()
	now := time.Now().UnixMilli()
	ref := message.ModelRef{ProviderID: "fake", ModelID: "model"}
	user := message.Info{ID: id.Ascending(id.Message), SessionID: h.sess.ID, Role: message.RoleUser,
		Time: message.Time{Created: now}, Agent: "build", Model: ref}
	answer := message.Info{ID: id.Ascending(id.Message), SessionID: h.sess.ID, Role: message.RoleAssistant,
		Time: message.Time{Created: now, Completed: now}, ParentID: user.ID, ModelID: ref.ModelID, ProviderID: ref.ProviderID,
		Mode: "build", Agent: "build", Finish: "stop"}
	input, _ := json.Marshal(map[string]string{"command": command})
	must := func(err error) {
		if err != nil {
			h.t.Fatal(err)
		}
	}
	must(h.sessions.PutMessage(ctx, user))
	must(h.sessions.PutPart(ctx, &message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: h.sess.ID, MessageID: user.ID},
		Text: "The following tool was executed by the user", Synthetic: true}))
	must(h.sessions.PutMessage(ctx, answer))
	must(h.sessions.PutPart(ctx, &message.ToolPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: h.sess.ID, MessageID: answer.ID},
		CallID: "shell", Tool: "bash", State: message.ToolState{Status: message.ToolCompleted, Input: input, Output: "hi\n",
			Title: command, Time: message.ToolTime{Start: now, End: now}}}))
	h.turns = append(h.turns, user.ID)
}

// undoTo reverts the session to turn k (1-based): the files must be as
// they were before it.
func (h *revertHarness) undoTo(k int) {
	h.t.Helper()
	if _, err := h.eng.Revert(context.Background(), RevertInput{SessionID: h.sess.ID, MessageID: h.turns[k-1]}); err != nil {
		h.t.Fatalf("undoing turn %d: %v", k, err)
	}
	h.wantState(k-1, fmt.Sprintf("after undoing turn %d", k))
}

func (h *revertHarness) redo() {
	h.t.Helper()
	if _, err := h.eng.Unrevert(context.Background(), h.sess.ID, false); err != nil {
		h.t.Fatalf("redo: %v", err)
	}
	h.wantState(len(h.turns), "after redo")
}

func (h *revertHarness) wantState(i int, when string) {
	h.t.Helper()
	if got := h.files(); !maps.Equal(got, h.states[i]) {
		h.t.Fatalf("%s: files %v, want %v", when, got, h.states[i])
	}
}

// TestUndoChains undoes chains of turns of every kind one turn at a time,
// up to five deep, redoes them all, and undoes them again.
func TestUndoChains(t *testing.T) {
	t.Parallel()
	kinds := []string{"file", "text", "cmd", "test", "agent", "bash"}
	var chains [][]string
	for _, a := range kinds {
		for _, b := range kinds {
			chains = append(chains, []string{a, b})
		}
	}
	// Five deep: each kind at each place, and runs of turns that change
	// nothing between turns that do.
	for r := range kinds {
		c := append(append([]string{}, kinds[r:]...), kinds[:r]...)
		chains = append(chains, c[:5])
	}
	chains = append(chains,
		[]string{"file", "text", "text", "cmd", "test"},
		[]string{"file", "text", "cmd", "test", "file"},
		[]string{"text", "cmd", "test", "agent", "text"},
		[]string{"agent", "cmd", "agent", "text", "bash"},
	)
	for _, chain := range chains {
		t.Run(strings.Join(chain, "-"), func(t *testing.T) {
			h := newRevertHarness(t, chain)
			for _, k := range chain {
				h.turn(k)
			}
			n := len(chain)
			for k := n; k >= 1; k-- {
				h.undoTo(k)
			}
			h.redo()
			// Undo again, skipping back two turns at once, then forward one.
			if n >= 3 {
				h.undoTo(n)
				h.undoTo(n - 2)
				h.undoTo(n - 1)
				h.redo()
			}
		})
	}
}

// TestRevertErrorNamesItsCause checks that a revert to a turn that changed
// nothing, followed by one to a turn that did, works, and that unreverting
// a revert whose checkpoint is gone says which one.
func TestRevertErrorNamesItsCause(t *testing.T) {
	t.Parallel()
	h := newRevertHarness(t, []string{"file", "text"})
	h.turn("file")
	h.turn("text")
	h.undoTo(2)
	info, err := h.sessions.Get(context.Background(), h.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r := revertOf(info); r == nil || r.Snapshot != "" {
		t.Fatalf("revert state after undoing a text turn = %+v, want one without a snapshot", r)
	}
	h.undoTo(1)
	// A revert state naming a snapshot the store does not have.
	missing := id.Ascending(id.Snapshot)
	_, err = h.sessions.Update(context.Background(), h.sess.ID, func(i *Info) {
		i.Revert = json.RawMessage(`{"messageID":"` + h.turns[1] + `","snapshot":"` + missing + `"}`)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.eng.Revert(context.Background(), RevertInput{SessionID: h.sess.ID, MessageID: h.turns[0]})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("revert with a missing earlier snapshot: %v, want an error naming it", err)
	}
}

// TestRevertConflictKeepsEarlierRevert moves a revert point back over a
// file the user edited since: the revert stops with a conflict, and the
// earlier revert stays in force (its files as it left them), so redo
// still works.
func TestRevertConflictKeepsEarlierRevert(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newRevertHarness(t, []string{"file", "bash"})
	h.turn("file")
	h.turn("bash")
	h.undoTo(2)
	edited := filepath.Join(h.work, "f.txt")
	if err := os.WriteFile(edited, []byte("the user's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := h.files()
	var conflict *snapshot.ConflictError
	_, err := h.eng.Revert(ctx, RevertInput{SessionID: h.sess.ID, MessageID: h.turns[0]})
	if !errors.As(err, &conflict) {
		t.Fatalf("reverting over the user's edit: %v, want a conflict", err)
	}
	if got := h.files(); !maps.Equal(got, before) {
		t.Fatalf("a refused revert changed the files: %v, want %v", got, before)
	}
	if _, err := h.eng.Unrevert(ctx, h.sess.ID, false); err != nil {
		t.Fatalf("redo after a refused revert: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.work, "b.txt")); string(b) != "bash turn 2\n" {
		t.Errorf("b.txt after redo = %q", b)
	}
}
