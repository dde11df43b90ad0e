package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// sidebarSession is a session that changed two files and keeps a todo
// list.
func sidebarSession(m *Model) {
	todos := `{"todos":[{"content":"Find the double call","status":"completed","priority":"high"},` +
		`{"content":"Remove it","status":"in_progress","priority":"high"}]}`
	created := "--- /dev/null\n+++ docs/greeting.md\n@@ -0,0 +1,3 @@\n+# Greeting\n+\n+Said once.\n"
	m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
		userMsg("msg_01", "Greet only once and document it"),
		answer("msg_02", "msg_01", 42000,
			todoCall("c0", todos),
			withMeta(toolCall("c1", "edit", `{"filePath":"greet.go","oldString":"\tgreet()\n\tgreet()","newString":"\tgreet() // once"}`, client.ToolCompleted, "Edit applied successfully."),
				map[string]any{client.ChangesKey: []client.FileChange{{Path: "greet.go", Type: client.ChangeUpdate, Patch: greetDiff}}}),
			withMeta(toolCall("c2", "write", `{"filePath":"docs/greeting.md","content":"# Greeting\n\nSaid once.\n"}`, client.ToolCompleted, "Wrote the file."),
				map[string]any{"diff": created}),
			text("The greeting is printed once now, and docs/greeting.md says so.")),
	}})
}

// moreGoldens are frames at sizes of their own: the sidebar where it
// shows by default and where it does not, the command palette.
var moreGoldens = []struct {
	name  string
	w, h  int
	build func(m *Model)
}{
	{"sidebar", 200, 60, sidebarSession},
	{"sidebar", 120, 35, sidebarSession},
	{"sidebar-toggled", 120, 35, func(m *Model) { sidebarSession(m); send(m, keyPress("ctrl+x"), keyPress("b")) }},
	{"sidebar-servers", 200, 60, func(m *Model) { sidebarSession(m); send(m, testServers) }},
	{"sidebar-servers", 120, 35, func(m *Model) { sidebarSession(m); send(m, testServers, keyPress("ctrl+x"), keyPress("b")) }},
	{"context", 40, 12, contextOpen},
	{"context", 80, 24, contextOpen},
	{"context", 120, 35, contextOpen},
	{"context", 200, 60, contextOpen},
	{"connect", 40, 12, connectOpen},
	{"connect", 80, 24, connectOpen},
	{"connect", 120, 35, connectOpen},
	{"connect", 200, 60, connectOpen},
	{"connect-key", 40, 12, connectKey},
	{"connect-key", 80, 24, connectKey},
	{"connect-key", 120, 35, connectKey},
	{"connect-key", 200, 60, connectKey},
	{"question", 40, 12, twoQuestions},
	{"question", 80, 24, twoQuestions},
	{"question", 120, 35, twoQuestions},
	{"question", 200, 60, twoQuestions},
	{"question-typing", 40, 12, questionTyping},
	{"question-typing", 80, 24, questionTyping},
	{"question-typing", 120, 35, questionTyping},
	{"question-typing", 200, 60, questionTyping},
	{"sessions", 40, 12, sessionPicker},
	{"sessions", 80, 24, sessionPicker},
	{"sessions", 120, 35, sessionPicker},
	{"sessions", 200, 60, sessionPicker},
	{"sessions-filtered", 80, 24, func(m *Model) { sessionPicker(m); send(m, typedKeys("race")...) }},
	{"timeline", 40, 12, timelineOpen},
	{"timeline", 80, 24, timelineOpen},
	{"timeline", 120, 35, timelineOpen},
	{"timeline", 200, 60, timelineOpen},
	{"start", 80, 24, startScreen},
	{"start", 120, 35, startScreen},
	{"palette", 80, 24, func(m *Model) { sidebarSession(m); send(m, keyPress("ctrl+p")) }},
	{"palette-filtered", 80, 24, func(m *Model) { sidebarSession(m); send(m, keyPress("ctrl+p")); send(m, typedKeys("sess")...) }},
}

// TestMoreGoldenFrames compares the frames of moreGoldens with
// testdata/golden; -update rewrites them.
func TestMoreGoldenFrames(t *testing.T) {
	for _, g := range moreGoldens {
		name := fmt.Sprintf("%s-%dx%d", g.name, g.w, g.h)
		t.Run(name, func(t *testing.T) {
			m := testModel(t, g.w, g.h)
			g.build(m)
			got := screen(m)
			checkFrame(t, got, g.w, g.h)
			path := filepath.Join("testdata", "golden", name+".txt")
			if *update {
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

// startScreen is the view before a session opens, in a project with
// sessions.
func startScreen(m *Model) {
	m.opts.Version = "1.4.2"
	m.recent = []client.Session{
		{ID: "ses_2", Title: "Fix the greeting", Time: client.SessionTime{Updated: clock.Add(-2 * time.Hour).UnixMilli()}},
		{ID: "ses_1", Title: "Add a farewell", Time: client.SessionTime{Updated: clock.Add(-50 * time.Hour).UnixMilli()}},
	}
}

// connectOpen is /connect's list of providers.
func connectOpen(m *Model) { m.slash("connect", "") }

// connectKey is /connect's key field, a key pasted.
func connectKey(m *Model) {
	connectOpen(m)
	send(m, keyPress("enter"), tea.PasteMsg{Content: "sk-ant-0123456789"})
}

// pickerSessions are sessions as the picker lists them.
var pickerSessions = []client.Session{
	{ID: "ses_3", Title: "Fix the greeting", Messages: 14, Preview: "The greeting is printed twice when the program starts; find the double call and remove it, then document the change in docs/greeting.md.",
		Time: client.SessionTime{Updated: clock.Add(-2 * time.Hour).UnixMilli()}},
	{ID: "ses_2", Title: "Add a farewell", Messages: 1, Preview: "Add a farewell message.", Time: client.SessionTime{Updated: clock.Add(-50 * time.Hour).UnixMilli()}},
	{ID: "ses_1", Title: "Set up CI", Messages: 230, Preview: "Write a CI script that runs go vet and the tests with the race detector.",
		Time: client.SessionTime{Updated: clock.Add(-24 * 9 * time.Hour).UnixMilli()}},
}

// sessionPicker is the session picker over pickerSessions.
func sessionPicker(m *Model) {
	send(m, listMsg{dialog: sessionsDialog(pickerSessions, "ses_3", clock)})
}

// timelineOpen is the timeline of a session of three prompts.
func timelineOpen(m *Model) {
	sidebarSession(m)
	at := func(msg client.Message, ago time.Duration) client.Message {
		msg.Info.Time.Created = clock.Add(-ago).UnixMilli()
		return msg
	}
	msgs := []client.Message{
		at(userMsg("msg_01", "Greet only once and document it"), 3*time.Hour),
		answer("msg_02", "msg_01", 42000, text("Done.")),
		at(userMsg("msg_03", "Now add a farewell message that is printed when the program ends, after everything else has run"), 2*time.Hour),
		answer("msg_04", "msg_03", 43000, text("Done.")),
		at(userMsg("msg_05", "Run the tests"), 5*time.Minute),
	}
	send(m, listMsg{dialog: timelineDialog(msgs, clock)})
}
