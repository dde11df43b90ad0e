package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// twoQuestions opens a session asking two questions, the first taking
// several answers.
func twoQuestions(m *Model) {
	sidebarSession(m)
	send(m, eventsMsg{client.QuestionAskedEvent{QuestionRequest: client.QuestionRequest{ID: "que_1", SessionID: goldenSession().ID,
		Questions: []client.QuestionInfo{
			{Question: "Which colours should the theme use?", Header: "Colours", Multiple: true, Options: []client.QuestionOption{
				{Label: "Red", Description: "for errors"}, {Label: "Green", Description: "for success"}, {Label: "Blue"}}},
			{Question: "Name?", Header: "Name", Options: []client.QuestionOption{{Label: "Ada"}}},
		}}}})
}

// questionTyping is the first question with two options ticked and an
// answer being typed.
func questionTyping(m *Model) {
	twoQuestions(m)
	send(m, keyPress("space"), keyPress("down"), keyPress("space"), keyPress("up"), keyPress("up"))
	send(m, keyPress("enter"))
	send(m, typedKeys("Teal")...)
}

// TestQuestionChoicesAndText: a question taking several answers sends
// the options ticked and the answer typed together.
func TestQuestionChoicesAndText(t *testing.T) {
	m := testModel(t, 100, 30)
	questionTyping(m)
	if s := screen(m); !strings.Contains(s, "with the options ticked: Red, Green") || !strings.Contains(s, "> Teal") {
		t.Fatalf("the typed answer:\n%s", s)
	}
	send(m, keyPress("enter"))
	if got := m.quest.answers; len(got) != 1 || !slices.Equal(got[0], []string{"Red", "Green", "Teal"}) {
		t.Errorf("answers %q, want Red, Green and Teal", got)
	}
	if s := screen(m); !strings.Contains(s, "Name?") {
		t.Errorf("the second question is not shown:\n%s", s)
	}
}

// TestReasoningFolds: a finished reasoning shows folded to one line with
// its length; /thinking shows it in full, and again folds it.
func TestReasoningFolds(t *testing.T) {
	m := testModel(t, 100, 30)
	reasoning := client.Part{Type: client.PartReasoning, Text: "First, read the file.\nThen find the double call.",
		Time: &client.PartTime{Start: 1, End: 2}}
	send(m, sessionMsg{sess: goldenSession(), msgs: []client.Message{userMsg("msg_01", "Fix it"),
		answer("msg_02", "msg_01", 1000, reasoning, text("Fixed."))}})
	if s := screen(m); !strings.Contains(s, "Thought (2 lines)") || strings.Contains(s, "double call") {
		t.Fatalf("the reasoning is not folded:\n%s", s)
	}
	m.slash("thinking", "")
	if s := screen(m); !strings.Contains(s, "Thinking:") || !strings.Contains(s, "Then find the double call.") {
		t.Fatalf("/thinking did not unfold it:\n%s", s)
	}
	m.slash("thinking", "")
	if s := screen(m); strings.Contains(s, "double call") {
		t.Errorf("/thinking again did not fold it:\n%s", s)
	}
}
