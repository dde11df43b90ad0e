package acp_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

const readScript = `
step
reasoning The user wants the file.
text I will read a.txt.
call call_1 read {"filePath":"a.txt"}
finish tool-calls input=100 output=10
step
text It says hello world.
finish stop input=200 output=5
`

// TestPromptStreamsUpdates checks the updates of a turn that reasons,
// writes, reads a file and answers, in order, with the stop reason.
func TestPromptStreamsUpdates(t *testing.T) {
	r := newRig(t, readScript, "", map[string]string{"a.txt": "hello world\n"})
	init := r.initialize()
	if !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.Image ||
		!init.AgentCapabilities.PromptCapabilities.EmbeddedContext || init.AgentInfo == nil || init.AgentInfo.Name != "codeloop" {
		t.Errorf("initialize: %+v", init)
	}
	sess := r.newSession()
	if sess.Modes == nil || sess.Modes.CurrentModeId != "build" ||
		!slices.ContainsFunc(sess.Modes.AvailableModes, func(m sdk.SessionMode) bool { return m.Id == "plan" }) {
		t.Errorf("modes: %+v", sess.Modes)
	}
	if len(sess.ConfigOptions) == 0 || sess.ConfigOptions[0].Select == nil || sess.ConfigOptions[0].Select.CurrentValue != "fake/model" {
		t.Errorf("config options: %+v", sess.ConfigOptions)
	}

	resp := r.prompt(sess.SessionId, sdk.TextBlock("what does a.txt say?"))
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stopReason = %q, want end_turn", resp.StopReason)
	}
	us := r.ed.snapshot(sess.SessionId)
	want := []string{"agent_thought_chunk", "agent_message_chunk", "tool_call", "tool_call_update", "tool_call_update", "agent_message_chunk"}
	if got := squeeze(us); !slices.Equal(got, want) {
		t.Errorf("updates:\n got %v\nwant %v", got, want)
	}
	if got := text(us, "agent_thought_chunk"); got != "The user wants the file." {
		t.Errorf("thought = %q", got)
	}
	if got := text(us, "agent_message_chunk"); got != "I will read a.txt.It says hello world." {
		t.Errorf("message = %q", got)
	}
	calls := toolUpdates(us, "call_1")
	if len(calls) == 0 || calls[0].ToolCall == nil {
		t.Fatalf("no tool_call for call_1: %v", kinds(us))
	}
	if tc := calls[0].ToolCall; tc.Kind != sdk.ToolKindRead {
		t.Errorf("tool_call kind = %q, want read", tc.Kind)
	}
	last := calls[len(calls)-1].ToolCallUpdate
	if last == nil || last.Status == nil || *last.Status != sdk.ToolCallStatusCompleted {
		t.Fatalf("last update of call_1: %+v", calls[len(calls)-1])
	}
	if len(last.Locations) != 1 || last.Locations[0].Path != filepath.Join(r.project.Dir, "a.txt") {
		t.Errorf("locations = %+v", last.Locations)
	}
	raw, _ := json.Marshal(last.RawInput)
	if !strings.Contains(string(raw), `"filePath":"a.txt"`) {
		t.Errorf("rawInput = %s", raw)
	}
	out, _ := json.Marshal(last.RawOutput)
	if !strings.Contains(string(out), "hello world") {
		t.Errorf("rawOutput = %s", out)
	}
}

const editScript = `
step
call call_1 edit {"filePath":"a.txt","oldString":"hello","newString":"goodbye"}
finish tool-calls
step
call call_2 write {"filePath":"b.txt","content":"one\ntwo\nthree\n"}
finish tool-calls
step
call call_3 write {"filePath":"c.txt","content":"brand new\n"}
finish tool-calls
step
text Done.
finish stop
`

// TestEditsReportDiffs checks that edits and writes end with diff content:
// the path, the file's whole old text and its whole new text.
func TestEditsReportDiffs(t *testing.T) {
	r := newRig(t, editScript, "", map[string]string{"a.txt": "hello world\n", "b.txt": "one\n2\nthree\n"})
	sess := r.newSession()
	if resp := r.prompt(sess.SessionId, sdk.TextBlock("edit")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", resp.StopReason)
	}
	us := r.ed.snapshot(sess.SessionId)
	for _, c := range []struct {
		call, path, old, new string
		isNew                bool
		title                string // while it runs: the tool and its summary
	}{
		{"call_1", "a.txt", "hello world\n", "goodbye world\n", false, "edit a.txt"},
		{"call_2", "b.txt", "one\n2\nthree\n", "one\ntwo\nthree\n", false, "write b.txt"},
		{"call_3", "c.txt", "", "brand new\n", true, "write c.txt"},
	} {
		calls := toolUpdates(us, c.call)
		if len(calls) == 0 {
			t.Errorf("%s: no updates", c.call)
			continue
		}
		titled := false
		for _, u := range calls {
			titled = titled || u.ToolCallUpdate != nil && u.ToolCallUpdate.Title != nil && *u.ToolCallUpdate.Title == c.title
		}
		if !titled {
			t.Errorf("%s: no update titled %q", c.call, c.title)
		}
		if calls[0].ToolCall.Kind != sdk.ToolKindEdit {
			t.Errorf("%s: kind %q, want edit", c.call, calls[0].ToolCall.Kind)
		}
		last := calls[len(calls)-1].ToolCallUpdate
		if last == nil || len(last.Content) != 1 || last.Content[0].Diff == nil {
			t.Errorf("%s: last update has no diff: %+v", c.call, calls[len(calls)-1])
			continue
		}
		d := last.Content[0].Diff
		if d.Path != filepath.Join(r.project.Dir, c.path) || d.NewText != c.new {
			t.Errorf("%s: diff %s new %q", c.call, d.Path, d.NewText)
		}
		switch {
		case c.isNew && d.OldText != nil:
			t.Errorf("%s: a new file has old text %q", c.call, *d.OldText)
		case !c.isNew && (d.OldText == nil || *d.OldText != c.old):
			t.Errorf("%s: old text %v, want %q", c.call, d.OldText, c.old)
		}
	}
}

const bashScript = `
step
call call_1 bash {"command":"sleep 30","description":"wait"}
finish tool-calls
step
text never reached
finish stop
`

// TestCancelDuringToolCall cancels a prompt while its shell command runs:
// the prompt ends cancelled, promptly, and the call is reported failed.
func TestCancelDuringToolCall(t *testing.T) {
	r := newRig(t, bashScript, "", nil)
	sess := r.newSession()
	result := make(chan sdk.PromptResponse, 1)
	go func() { result <- r.prompt(sess.SessionId, sdk.TextBlock("wait a while")) }()
	r.ed.waitFor(sess.SessionId, "the command to run", func(us []sdk.SessionUpdate) bool {
		return lastStatus(us, "call_1") == sdk.ToolCallStatusInProgress
	})
	start := time.Now()
	if err := r.ed.conn.Cancel(r.ctx(), sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	select {
	case resp := <-result:
		if resp.StopReason != sdk.StopReasonCancelled {
			t.Errorf("stopReason = %q, want cancelled", resp.StopReason)
		}
		t.Logf("cancelled in %v", time.Since(start))
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
	if st := lastStatus(r.ed.snapshot(sess.SessionId), "call_1"); st != sdk.ToolCallStatusFailed {
		t.Errorf("call_1 ended %q, want failed", st)
	}
	if got := text(r.ed.snapshot(sess.SessionId), "agent_message_chunk"); strings.Contains(got, "never reached") {
		t.Errorf("the model was asked again after the cancel: %q", got)
	}
}

// TestPromptWithImage sends an image with the text: the model receives it
// as an image.
func TestPromptWithImage(t *testing.T) {
	r := newRig(t, "step\ntext A red dot.\nfinish stop\n", "", nil)
	sess := r.newSession()
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	resp := r.prompt(sess.SessionId, sdk.TextBlock("what is this?"), sdk.ImageBlock(png, "image/png"))
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", resp.StopReason)
	}
	reqs := r.project.Model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was not asked")
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, "data:image/png;base64,"+png) {
		t.Errorf("the request does not carry the image:\n%s", body)
	}
	if !strings.Contains(body, "what is this?") {
		t.Errorf("the request does not carry the text")
	}
}

// TestPromptWithResources sends an embedded text resource and a link to a
// project file: the model reads both.
func TestPromptWithResources(t *testing.T) {
	r := newRig(t, "step\ntext Seen.\nfinish stop\n", "", map[string]string{"notes.md": "linked file body\n"})
	sess := r.newSession()
	uri := "file://" + filepath.Join(r.project.Dir, "notes.md")
	resp := r.prompt(sess.SessionId,
		sdk.TextBlock("compare these"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///tmp/buffer.go", Text: "package unsaved\n"}}),
		sdk.ResourceLinkBlock("notes.md", uri),
	)
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %q", resp.StopReason)
	}
	body := string(r.project.Model.Requests()[0].Body)
	for _, want := range []string{"package unsaved", "linked file body"} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %q:\n%s", want, body)
		}
	}
}

// TestModesAndModel switches the mode and the model's option and checks
// the next prompt uses them.
func TestModesAndModel(t *testing.T) {
	r := newRig(t, "step\ntext Planned.\nfinish stop\n", "", nil)
	sess := r.newSession()
	if _, err := r.ed.conn.SetSessionMode(r.ctx(), sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ed.conn.SetSessionMode(r.ctx(), sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "nope"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	_, err := r.ed.conn.SetSessionConfigOption(r.ctx(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sess.SessionId, ConfigId: "model", Value: "nobody/none"}})
	if err == nil {
		t.Error("an unknown model was accepted")
	}
	opts, err := r.ed.conn.SetSessionConfigOption(r.ctx(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sess.SessionId, ConfigId: "model", Value: "fake/model"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.ConfigOptions) == 0 || opts.ConfigOptions[0].Select.CurrentValue != "fake/model" {
		t.Errorf("config options after the change: %+v", opts.ConfigOptions)
	}
	r.prompt(sess.SessionId, sdk.TextBlock("plan it"))
	msgs := r.messages(string(sess.SessionId))
	if len(msgs) == 0 || msgs[0].Info.Agent != "plan" || msgs[0].Info.Model == nil || msgs[0].Info.Model.String() != "fake/model" {
		t.Errorf("the prompt was not sent to plan with fake/model: %+v", msgs)
	}
}

// TestPromptReplacesRunningPrompt sends a second prompt while the first
// runs a command: the first ends cancelled and the second is answered.
func TestPromptReplacesRunningPrompt(t *testing.T) {
	r := newRig(t, "step\ncall call_1 bash {\"command\":\"sleep 30\"}\nfinish tool-calls\nstep\ntext Second answer.\nfinish stop\n", "", nil)
	sess := r.newSession()
	first := make(chan sdk.PromptResponse, 1)
	go func() { first <- r.prompt(sess.SessionId, sdk.TextBlock("wait")) }()
	r.ed.waitFor(sess.SessionId, "the command to run", func(us []sdk.SessionUpdate) bool {
		return lastStatus(us, "call_1") == sdk.ToolCallStatusInProgress
	})
	second := r.prompt(sess.SessionId, sdk.TextBlock("never mind"))
	if second.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("second prompt: %q", second.StopReason)
	}
	select {
	case resp := <-first:
		if resp.StopReason != sdk.StopReasonCancelled {
			t.Errorf("first prompt: %q, want cancelled", resp.StopReason)
		}
	case <-time.After(timeout):
		t.Fatal("the first prompt never answered")
	}
	if got := text(r.ed.snapshot(sess.SessionId), "agent_message_chunk"); got != "Second answer." {
		t.Errorf("answer %q", got)
	}
}
