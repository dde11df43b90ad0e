package tui

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata/golden")

// The sizes every golden frame is drawn at.
var goldenSizes = [][2]int{{40, 12}, {80, 24}, {200, 60}}

const sessID = "ses_golden"

// session returns the session the scenarios show.
func goldenSession() client.Session {
	return client.Session{ID: sessID, Title: "Fix the greeting", Agent: "build",
		Model: &client.SessionModel{ID: "model", ProviderID: "fake"}, Cost: 0.0123,
		Time: client.SessionTime{Created: clock.UnixMilli(), Updated: clock.UnixMilli()}}
}

func userMsg(id, text string) client.Message {
	return client.Message{
		Info:  client.MessageInfo{ID: id, SessionID: sessID, Role: client.RoleUser, Agent: "build"},
		Parts: []client.Part{{ID: id + "_p", SessionID: sessID, MessageID: id, Type: client.PartText, Text: text}},
	}
}

func answer(id, parent string, tokens int64, parts ...client.Part) client.Message {
	for i := range parts {
		parts[i].SessionID, parts[i].MessageID = sessID, id
		parts[i].ID = fmt.Sprintf("prt_%s_%d", id, i)
	}
	return client.Message{
		Info: client.MessageInfo{ID: id, SessionID: sessID, Role: client.RoleAssistant, ParentID: parent, Agent: "build",
			ProviderID: "fake", ModelID: "model", Tokens: &client.Tokens{Input: tokens}, Finish: "stop",
			Time: client.MessageTime{Created: clock.UnixMilli(), Completed: clock.UnixMilli()}},
		Parts: parts,
	}
}

func text(s string) client.Part {
	return client.Part{Type: client.PartText, Text: s, Time: &client.PartTime{Start: 1, End: 2}}
}

func toolCall(callID, tool, input, status, output string) client.Part {
	return toolCallIn("", callID, tool, input, status, output)
}

// toolCallIn is a call made in the project dir, described as the engine
// describes it.
func toolCallIn(dir, callID, tool, input, status, output string) client.Part {
	return describedIn(client.Part{Type: client.PartTool, CallID: callID, Tool: tool,
		State: &client.ToolState{Status: status, Input: json.RawMessage(input), Output: output, Time: &client.ToolTime{Start: 1, End: 2}}}, dir)
}

// greetDiff is the diff of an edit that removes a line.
const greetDiff = "--- greet.go\n+++ greet.go\n@@ -1,7 +1,6 @@\n package main\n \n func main() {\n-\tgreet()\n-\tgreet()\n+\tgreet() // once\n }\n"

// todoCall is a completed todowrite call with input, whose metadata
// holds the list it wrote, as the tool's does.
func todoCall(callID, input string) client.Part {
	var in struct {
		Todos []client.Todo `json:"todos"`
	}
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		panic(err)
	}
	return withMeta(toolCall(callID, "todowrite", input, client.ToolCompleted, ""), map[string]any{"todos": in.Todos})
}

// withMeta sets a tool call's metadata.
func withMeta(p client.Part, md map[string]any) client.Part {
	p.State.Metadata = md
	return p
}

// scenarios are the states the golden frames show.
var scenarios = []struct {
	name  string
	build func(m *Model)
}{
	{"empty", func(m *Model) {}},
	{"streaming", func(m *Model) {
		m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
			userMsg("msg_01", "Why does the greeting say hello world twice?"),
			answer("msg_02", "msg_01", 4200, toolCall("c1", "read", `{"filePath":"greet.go"}`, client.ToolCompleted, "1: package main")),
		}})
		streaming := client.Part{ID: "msg_03_p0", SessionID: sessID, MessageID: "msg_03", Type: client.PartText,
			Time: &client.PartTime{Start: 1}}
		m.Update(eventsMsg{
			client.SessionStatusEvent{SessionID: sessID, Status: client.SessionStatus{Type: client.StatusBusy}},
			client.MessageUpdatedEvent{Info: client.MessageInfo{ID: "msg_03", SessionID: sessID, Role: client.RoleAssistant, ParentID: "msg_01"}},
			client.PartUpdatedEvent{Part: streaming},
			client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_03", PartID: "msg_03_p0", Field: "text", Delta: "The loop in main calls "},
			client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_03", PartID: "msg_03_p0", Field: "text", Delta: "greet twice: once before the flag check\nand once after it. "},
			client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_03", PartID: "msg_03_p0", Field: "text", Delta: "Removing the first"},
		})
	}},
	{"permission", func(m *Model) {
		m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
			userMsg("msg_01", "Run the tests"),
			answer("msg_02", "msg_01", 3000, toolCall("c1", "bash", `{"command":"go test ./..."}`, client.ToolRunning, "")),
		}, status: client.SessionStatus{Type: client.StatusBusy}})
		m.Update(eventsMsg{client.PermissionAskedEvent{PermissionRequest: client.PermissionRequest{
			ID: "per_1", SessionID: sessID, Permission: "bash", Patterns: []string{"go test ./..."}, Always: []string{"go test *"},
		}}})
	}},
	{"expanded-tool", func(m *Model) {
		out := "=== RUN   TestGreet\n--- FAIL: TestGreet (0.00s)\n    greet_test.go:12: got \"hello world hello world\", want \"hello world\"\nFAIL\nexit status 1"
		m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
			userMsg("msg_01", "Run the tests"),
			answer("msg_02", "msg_01", 5000,
				toolCall("c1", "bash", `{"command":"go test ./...","timeout":60000}`, client.ToolCompleted, out),
				text("One test fails: greet prints its text twice.")),
		}})
		m.Update(keyPress("ctrl+o"))
	}},
	{"diff", func(m *Model) {
		m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
			userMsg("msg_01", "Greet only once"),
			answer("msg_02", "msg_01", 2500, withMeta(toolCall("c1", "edit",
				`{"filePath":"greet.go","oldString":"\tgreet()\n\tgreet()","newString":"\tgreet()"}`, client.ToolCompleted, "Edit applied successfully."),
				map[string]any{"diff": greetDiff}), text("The greeting is printed once now.")),
		}})
	}},
	{"permission-edit", func(m *Model) {
		m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{userMsg("msg_01", "Greet only once")},
			status: client.SessionStatus{Type: client.StatusBusy}})
		m.Update(eventsMsg{client.PermissionAskedEvent{PermissionRequest: client.PermissionRequest{
			ID: "per_1", SessionID: sessID, Permission: "edit", Patterns: []string{"greet.go"}, Always: []string{"*"},
			Metadata: map[string]any{"filepath": "greet.go", "diff": greetDiff},
		}}})
	}},
	{"todo-task", func(m *Model) {
		todos := `{"todos":[{"content":"Find the double call","status":"completed","priority":"high"},` +
			`{"content":"Remove it","status":"in_progress","priority":"high"},{"content":"Run the tests","status":"pending","priority":"medium"}]}`
		m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
			userMsg("msg_01", "Fix the greeting and check the docs"),
			answer("msg_02", "msg_01", 2500, todoCall("c1", todos),
				withMeta(toolCall("c2", "task", `{"description":"Read the docs","prompt":"read","subagent_type":"explore"}`, client.ToolRunning, ""),
					map[string]any{"sessionId": "ses_child"})),
		}, status: client.SessionStatus{Type: client.StatusBusy}})
		m.Update(eventsMsg{
			client.PartUpdatedEvent{Part: describedIn(client.Part{ID: "prt_c1", SessionID: "ses_child", MessageID: "msg_c1", Type: client.PartTool, Tool: "grep",
				State: &client.ToolState{Status: client.ToolCompleted, Input: []byte(`{"pattern":"greet"}`)}}, "")},
			client.PartUpdatedEvent{Part: describedIn(client.Part{ID: "prt_c2", SessionID: "ses_child", MessageID: "msg_c1", Type: client.PartTool, Tool: "read",
				State: &client.ToolState{Status: client.ToolRunning, Input: []byte(`{"filePath":"README.md"}`)}}, "")},
		})
	}},
	{"search", func(m *Model) {
		m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(12)})
		send(m, typedKeys("/search greeting")...)
		send(m, keyPress("esc"), keyPress("enter"), keyPress("n"))
	}},
	{"select", func(m *Model) {
		m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(3)})
		send(m, keyPress("ctrl+s"), tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModShift})
	}},
	{"cjk", func(m *Model) {
		m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
			userMsg("msg_01", "这个函数为什么返回两次问候？请用中文解释。"),
			answer("msg_02", "msg_01", 1200, text("因为主循环在检查标志之前和之后都调用了问候函数。删除第一次调用即可解决问题。日本語の説明：挨拶関数が二回呼ばれています。")),
		}})
	}},
}

// TestGoldenFrames draws each scenario at each size and compares the
// text of the frame (styles stripped) with testdata/golden; -update
// rewrites the files.
func TestGoldenFrames(t *testing.T) {
	for _, sc := range scenarios {
		for _, size := range goldenSizes {
			name := fmt.Sprintf("%s-%dx%d", sc.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m := testModel(t, size[0], size[1])
				sc.build(m)
				got := screen(m)
				checkFrame(t, got, size[0], size[1])
				path := filepath.Join("testdata", "golden", name+".txt")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to write it)", err)
				}
				if got != string(want) {
					t.Errorf("frame differs from %s (run with -update to accept it)\ngot:\n%s\nwant:\n%s", path, got, want)
				}
			})
		}
	}
}

// checkFrame checks a frame's shape: exactly h lines, none wider than w.
func checkFrame(t *testing.T, frame string, w, h int) {
	t.Helper()
	ls := lines(frame)
	if len(ls) != h {
		t.Errorf("%d lines, want %d", len(ls), h)
	}
	for i, l := range ls {
		if n := cellWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, n, w, l)
		}
	}
}

// TestResizeRoundTrip: drawing at 120 columns, then 60, then 120 again
// gives the first frame back exactly, styles included.
func TestResizeRoundTrip(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			m := testModel(t, 120, 30)
			sc.build(m)
			first := m.View().Content
			send(m, resize(60, 30))
			narrow := m.View().Content
			checkFrame(t, stripped(narrow), 60, 30)
			send(m, resize(120, 30))
			if again := m.View().Content; again != first {
				t.Errorf("the frame changed after 120→60→120:\nbefore:\n%s\nafter:\n%s", stripped(first), stripped(again))
			}
		})
	}
}

// TestNoColor: with NO_COLOR the frame carries no colour, only emphasis.
func TestNoColor(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		m := testModel(t, 80, 24)
		if noColor {
			m = New(m.ctx, Options{NoColor: true, Now: func() time.Time { return clock }})
			send(m, resize(80, 24))
		}
		scenarios[1].build(m) // streaming
		got := m.View().Content
		colour := strings.Contains(got, "38;2;") || strings.Contains(got, "38;5;") || strings.Contains(got, "48;2;")
		if colour == noColor {
			t.Errorf("NoColor %v: the frame has colour %v:\n%q", noColor, colour, got)
		}
	}
}

// TestTooSmall: below 40×10 the view says the terminal is too small.
func TestTooSmall(t *testing.T) {
	for _, size := range [][2]int{{39, 24}, {80, 9}, {20, 5}} {
		m := testModel(t, size[0], size[1])
		got := screen(m)
		if !strings.Contains(strings.ReplaceAll(got, "\n", " "), "too small") {
			t.Errorf("%dx%d: %q", size[0], size[1], got)
		}
		checkFrame(t, got, size[0], min(size[1], len(lines(got))))
	}
	m := testModel(t, 40, 10)
	if got := screen(m); strings.Contains(got, "too small") {
		t.Errorf("40x10 is big enough:\n%s", got)
	}
}
