package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// TestUpdate plays keys and events on the view and checks its state and
// screen after each step.
func TestUpdate(t *testing.T) {
	type step struct {
		msgs    []tea.Msg
		check   func(t *testing.T, m *Model, cmd tea.Cmd)
		showing []string // the screen shows these
		hiding  []string // and not these
	}
	keys := func(ks ...string) []tea.Msg {
		var out []tea.Msg
		for _, k := range ks {
			out = append(out, keyPress(k))
		}
		return out
	}
	typed := func(s string) []tea.Msg {
		var out []tea.Msg
		for _, r := range s {
			out = append(out, keyPress(string(r)))
		}
		return out
	}
	opened := []tea.Msg{sessionMsg{sess: goldenSession(), msgs: []client.Message{userMsg("msg_01", "hello")}}}
	busy := eventsMsg{client.SessionStatusEvent{SessionID: sessID, Status: client.SessionStatus{Type: client.StatusBusy}}}
	ask := func(id, session string) eventsMsg {
		return eventsMsg{client.PermissionAskedEvent{PermissionRequest: client.PermissionRequest{
			ID: id, SessionID: session, Permission: "bash", Patterns: []string{"make"}, Always: []string{"make *"}}}}
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"enter sends and clears the editor", []step{
			{msgs: typed("fix it"), showing: []string{"> fix it"}},
			{msgs: keys("enter"), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if m.input.Value() != "" || cmd == nil {
					t.Errorf("input %q, command %v", m.input.Value(), cmd != nil)
				}
			}},
		}},
		{"an empty editor sends nothing", []step{
			{msgs: keys("enter"), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if cmd != nil {
					t.Error("an empty prompt was sent")
				}
			}},
		}},
		{"shift+enter and ctrl+j insert newlines", []step{
			{msgs: append(append(append(typed("one"), keyPress("shift+enter")), typed("two")...), append([]tea.Msg{keyPress("ctrl+j")}, typed("three")...)...),
				check: func(t *testing.T, m *Model, _ tea.Cmd) {
					if got := m.input.Value(); got != "one\ntwo\nthree" {
						t.Errorf("input %q", got)
					}
				}, showing: []string{"> one", "  two", "  three"}},
		}},
		{"a paste keeps its newlines and is not sent", []step{
			{msgs: []tea.Msg{tea.PasteMsg{Content: "line one\nline two"}}, check: func(t *testing.T, m *Model, _ tea.Cmd) {
				if got := m.input.Value(); got != "line one\nline two" {
					t.Errorf("input %q", got)
				}
			}},
		}},
		{"tab cycles the primary agents", []step{
			{showing: []string{"build · fake/model"}},
			{msgs: keys("tab"), showing: []string{"plan · fake/model"}},
			{msgs: keys("tab"), showing: []string{"build · fake/model"}, hiding: []string{"explore"}},
		}},
		{"esc twice interrupts a busy session", []step{
			{msgs: append(opened, busy)},
			{msgs: keys("esc"), showing: []string{"press Esc again to interrupt"}},
			{msgs: keys("esc"), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if cmd == nil || m.escArmed != 0 {
					t.Errorf("no interrupt sent (armed %d)", m.escArmed)
				}
			}, hiding: []string{"press Esc again"}},
		}},
		{"esc while idle does nothing", []step{
			{msgs: append(opened, keyPress("esc")), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if cmd != nil || m.escArmed != 0 {
					t.Error("Esc armed an interrupt with nothing running")
				}
			}},
		}},
		{"slash shows completions and tab completes", []step{
			{msgs: typed("/"), showing: []string{"/new", "/sessions", "/models"}, hiding: []string{"/greet"}},
			{msgs: keys("up"), showing: []string{"/greet", "Greets someone"}, hiding: []string{"/new"}},
			{msgs: typed("gr"), showing: []string{"/greet"}, hiding: []string{"/sessions"}},
			{msgs: keys("tab"), check: func(t *testing.T, m *Model, _ tea.Cmd) {
				if got := m.input.Value(); got != "/greet " {
					t.Errorf("input %q", got)
				}
			}, hiding: []string{"Greets someone"}},
		}},
		{"an unknown command says so", []step{
			{msgs: append(typed("/nosuch"), keyPress("esc"), keyPress("enter")), showing: []string{"unknown command /nosuch"}},
		}},
		{"/help opens and esc closes", []step{
			{msgs: append(typed("/help"), keyPress("esc"), keyPress("enter")), showing: []string{"Help", "Esc Esc", "interrupt"}},
			{msgs: keys("esc"), hiding: []string{"╭─ Help"}},
		}},
		{"/new empties the view", []step{
			{msgs: opened, showing: []string{"┃ hello", "Fix the greeting"}},
			{msgs: append(typed("/new"), keyPress("esc"), keyPress("enter")), showing: []string{"new session"}, hiding: []string{"┃ hello"}},
		}},
		{"a permission request opens the dialog; y allows once", []step{
			{msgs: append(opened, busy, ask("per_1", sessID)), showing: []string{"Permission needed: bash", "Run make", "› Allow once"}},
			{msgs: keys("down", "down"), showing: []string{"› Allow always in this project"}},
			{msgs: keys("y"), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if len(m.asks) != 0 || cmd == nil {
					t.Errorf("asks %v, command %v", m.asks, cmd != nil)
				}
			}, hiding: []string{"Permission needed"}},
		}},
		{"keys go to the dialog, not the editor", []step{
			{msgs: append(opened, ask("per_1", sessID), keyPress("x"), keyPress("z")), check: func(t *testing.T, m *Model, _ tea.Cmd) {
				if m.input.Value() != "" {
					t.Errorf("the editor got %q", m.input.Value())
				}
			}},
		}},
		{"a rejection can carry a message", []step{
			{msgs: append(opened, ask("per_1", sessID))},
			{msgs: append(keys("up", "enter"), typed("use the Makefile target test")...), showing: []string{"What should the model do instead?", "> use the Makefile target test"}},
			{msgs: keys("enter"), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if len(m.asks) != 0 || cmd == nil {
					t.Error("the rejection was not sent")
				}
			}},
		}},
		{"a question is answered from its options", []step{
			{msgs: append(opened, eventsMsg{client.QuestionAskedEvent{QuestionRequest: client.QuestionRequest{ID: "que_1", SessionID: sessID,
				Questions: []client.QuestionInfo{{Question: "Which colour?", Header: "Colour", Options: []client.QuestionOption{{Label: "Red"}, {Label: "Blue"}}}}}}}),
				showing: []string{"Question: Colour", "Which colour?", "› Red", "Blue", "Type an answer"}},
			{msgs: keys("down"), showing: []string{"› Blue"}},
			{msgs: keys("enter"), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if len(m.questions) != 0 || cmd == nil {
					t.Errorf("questions %v, command %v", m.questions, cmd != nil)
				}
			}, hiding: []string{"Which colour?"}},
		}},
		{"a question can be answered in one's own words", []step{
			{msgs: append(opened, eventsMsg{client.QuestionAskedEvent{QuestionRequest: client.QuestionRequest{ID: "que_1", SessionID: sessID,
				Questions: []client.QuestionInfo{{Question: "Name?", Header: "Name", Options: []client.QuestionOption{{Label: "Ada"}}}}}}})},
			{msgs: append(keys("up", "enter"), typed("Grace")...), showing: []string{"> Grace"}},
			{msgs: keys("enter"), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if len(m.questions) != 0 || cmd == nil {
					t.Error("the typed answer was not sent")
				}
			}},
		}},
		{"a sub-agent's request is shown too", []step{
			{msgs: append(opened, ask("per_2", "ses_child")), showing: []string{"Permission needed", "asked by a sub-agent"}},
			{msgs: []tea.Msg{eventsMsg{client.PermissionRepliedEvent{SessionID: "ses_child", RequestID: "per_2", Reply: "once"}}}, hiding: []string{"Permission needed"}},
		}},
		{"events of other sessions are not shown", []step{
			{msgs: append(opened, eventsMsg{
				client.MessageUpdatedEvent{Info: client.MessageInfo{ID: "msg_09", SessionID: "ses_other", Role: client.RoleUser}},
				client.PartUpdatedEvent{Part: client.Part{ID: "prt_9", SessionID: "ses_other", MessageID: "msg_09", Type: client.PartText, Text: "elsewhere"}},
			}), hiding: []string{"elsewhere"}},
		}},
		{"deltas stream into the answer", []step{
			{msgs: append(opened, eventsMsg{
				client.MessageUpdatedEvent{Info: client.MessageInfo{ID: "msg_02", SessionID: sessID, Role: client.RoleAssistant}},
				client.PartUpdatedEvent{Part: client.Part{ID: "prt_1", SessionID: sessID, MessageID: "msg_02", Type: client.PartText, Time: &client.PartTime{Start: 1}}},
				client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_02", PartID: "prt_1", Field: "text", Delta: "Hel"},
			}), showing: []string{"Hel"}},
			{msgs: []tea.Msg{eventsMsg{client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_02", PartID: "prt_1", Field: "text", Delta: "lo there"}}}, showing: []string{"Hello there"}},
			{msgs: []tea.Msg{eventsMsg{client.PartUpdatedEvent{Part: client.Part{ID: "prt_1", SessionID: sessID, MessageID: "msg_02", Type: client.PartText,
				Text: "Hello there, all.", Time: &client.PartTime{Start: 1, End: 2}}}}}, showing: []string{"Hello there, all."}},
		}},
		{"an answer's error stays visible", []step{
			{msgs: append(opened, eventsMsg{client.MessageUpdatedEvent{Info: client.MessageInfo{ID: "msg_02", SessionID: sessID, Role: client.RoleAssistant,
				Error: &client.MessageError{Name: "APIError", Data: client.MessageErrorData{Message: "rate limited"}}}}}), showing: []string{"Error: rate limited"}},
			{msgs: typed("again"), showing: []string{"Error: rate limited", "> again"}},
		}},
		{"a failure with details shows them in the transcript", []step{
			{msgs: append(opened, resultMsg{what: "sending", err: errors.New("no model is available.\nSet a provider's API key.")}),
				showing: []string{"sending: no model is available.", "Set a provider's API key."}},
		}},
		{"lost events reload the session", []step{
			{msgs: append(opened, eventsMsg{client.EventsDroppedEvent{Count: 3}}), check: func(t *testing.T, m *Model, cmd tea.Cmd) {
				if cmd == nil {
					t.Error("no reload after events were lost")
				}
			}},
		}},
		{"ctrl+c clears the editor, then quits", []step{
			{msgs: append(typed("draft"), keyPress("ctrl+c")), check: func(t *testing.T, m *Model, _ tea.Cmd) {
				if m.input.Value() != "" || m.quitting {
					t.Errorf("input %q, quitting %v", m.input.Value(), m.quitting)
				}
			}},
			{msgs: keys("ctrl+c"), check: func(t *testing.T, m *Model, _ tea.Cmd) {
				if !m.quitting {
					t.Error("Ctrl+C on an empty editor did not quit")
				}
			}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testModel(t, 80, 24)
			for i, st := range tt.steps {
				var cmd tea.Cmd
				for _, msg := range st.msgs {
					_, cmd = m.Update(msg)
				}
				if st.check != nil {
					st.check(t, m, cmd)
				}
				scr := screen(m)
				if !m.quitting {
					checkFrame(t, scr, 80, 24)
				}
				for _, w := range st.showing {
					if !strings.Contains(scr, w) {
						t.Errorf("step %d: the screen lacks %q:\n%s", i+1, w, scr)
					}
				}
				for _, w := range st.hiding {
					if strings.Contains(scr, w) {
						t.Errorf("step %d: the screen shows %q:\n%s", i+1, w, scr)
					}
				}
			}
		})
	}
}
