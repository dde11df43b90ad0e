package tui

import (
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// TestSearchNarrowsAsTyped: while a query grows, each keystroke counts
// the matches the whole transcript holds, though it looks only through
// the entries that matched before; text streamed in meanwhile and a
// shortened query are searched in full again.
func TestSearchNarrowsAsTyped(t *testing.T) {
	m := testModel(t, 80, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(20)})
	send(m, keyPress("ctrl+f"))
	count := func(q string) int {
		n := 0
		for _, e := range m.tr.entries {
			n += strings.Count(strings.ToLower(entryText(e)), strings.ToLower(q))
		}
		return n
	}
	typed := ""
	for _, k := range "greeting" {
		send(m, typedKeys(string(k))...)
		typed += string(k)
		if got, want := len(m.find.matches), count(typed); got != want {
			t.Fatalf("after %q: %d matches, the transcript holds %d", typed, got, want)
		}
	}
	// An answer streams in with the query in it.
	send(m, eventsMsg{
		client.MessageUpdatedEvent{Info: client.MessageInfo{ID: "msg_999999", SessionID: sessID, Role: client.RoleAssistant}},
		client.PartUpdatedEvent{Part: client.Part{ID: "prt_s", SessionID: sessID, MessageID: "msg_999999", Type: client.PartText, Time: &client.PartTime{Start: 1}}},
		client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_999999", PartID: "prt_s", Field: "text", Delta: "a greetings card"},
	})
	send(m, typedKeys("s")...)
	if got, want := len(m.find.matches), count("greetings"); got != want || want == 0 {
		t.Fatalf("after the streamed text: %d matches of %q, the transcript holds %d", got, "greetings", want)
	}
	send(m, keyPress("backspace"), keyPress("backspace"))
	if got, want := len(m.find.matches), count("greetin"); got != want {
		t.Errorf("after erasing: %d matches, the transcript holds %d", got, want)
	}
}
