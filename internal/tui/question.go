package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// questionDialog is the state of the dialog for the first pending
// question request: which question is shown, the answers given so far.
type questionDialog struct {
	id      string
	index   int
	sel     int
	picked  map[int]bool // options ticked, for a question taking several
	answers [][]string
	typing  bool // typing an answer of one's own
	text    string
}

func (m *Model) questionKey(k tea.KeyPressMsg) tea.Cmd {
	req := m.questions[0]
	if m.quest.id != req.ID {
		m.quest = questionDialog{id: req.ID, picked: map[int]bool{}}
	}
	d := &m.quest
	q := req.Questions[d.index]
	n := len(q.Options) + 1 // the last choice is typing an answer
	if d.typing {
		switch k.String() {
		case "esc":
			d.typing = false
		case "enter":
			if text := strings.TrimSpace(d.text); text != "" {
				// A question taking several answers keeps the options
				// ticked beside the typed one.
				return m.answer(req, append(d.ticked(q), text))
			}
		case "backspace":
			if r := []rune(d.text); len(r) > 0 {
				d.text = string(r[:len(r)-1])
			}
		default:
			d.text += k.Text
		}
		return nil
	}
	switch k.String() {
	case "up", "k":
		d.sel = (d.sel - 1 + n) % n
	case "down", "j":
		d.sel = (d.sel + 1) % n
	case "space":
		if q.Multiple && d.sel < len(q.Options) {
			d.picked[d.sel] = !d.picked[d.sel]
		}
	case "esc":
		m.dropQuestion(req.ID)
		return m.call("dismissing the question", "", func(ctx context.Context, c client.Client) error {
			return c.RejectQuestion(ctx, req.ID)
		})
	case "enter":
		if d.sel == len(q.Options) {
			d.typing = true
			return nil
		}
		labels := d.ticked(q)
		if len(labels) == 0 {
			labels = []string{q.Options[d.sel].Label}
		}
		return m.answer(req, labels)
	}
	return nil
}

// ticked is the labels of the options ticked, for a question taking
// several answers.
func (d *questionDialog) ticked(q client.QuestionInfo) []string {
	var labels []string
	if q.Multiple {
		for i, o := range q.Options {
			if d.picked[i] {
				labels = append(labels, o.Label)
			}
		}
	}
	return labels
}

// answer records the answer to the current question and sends them all
// after the last one.
func (m *Model) answer(req client.QuestionRequest, labels []string) tea.Cmd {
	d := &m.quest
	d.answers = append(d.answers, labels)
	if len(d.answers) < len(req.Questions) {
		d.index, d.sel, d.typing, d.text = d.index+1, 0, false, ""
		d.picked = map[int]bool{}
		return nil
	}
	answers := d.answers
	m.dropQuestion(req.ID)
	return m.call("answering the question", "", func(ctx context.Context, c client.Client) error {
		return c.ReplyQuestion(ctx, req.ID, answers)
	})
}

// questionView renders the question dialog.
func (m *Model) questionView(width, height int) []string {
	req := m.questions[0]
	th := &m.theme
	d := m.quest
	if d.id != req.ID {
		d = questionDialog{}
	}
	q := req.Questions[d.index]
	head := []string{q.Question}
	var choices, tail []string
	sel := d.sel
	if d.typing {
		choices = []string{"> " + d.text + "▏"}
		sel = 0
		if t := d.ticked(q); len(t) > 0 {
			head = append(head, th.faint.Render("with the options ticked: "+strings.Join(t, ", ")))
		}
		tail = []string{th.faint.Render("Enter send · Esc back")}
	} else {
		for i, o := range q.Options {
			tick := ""
			if q.Multiple {
				tick = "[ ] "
				if d.picked[i] {
					tick = "[x] "
				}
			}
			line := tick + o.Label
			if o.Description != "" {
				line += "  " + th.faint.Render(o.Description)
			}
			if i == d.sel {
				line = th.selected.Render("› " + tick + o.Label)
			} else {
				line = "  " + line
			}
			choices = append(choices, line)
		}
		other := "Type an answer"
		if d.sel == len(q.Options) {
			choices = append(choices, th.selected.Render("› "+other))
		} else {
			choices = append(choices, "  "+other)
		}
		hint := "↑↓ Enter · Esc dismiss"
		if q.Multiple {
			hint = "↑↓ Space tick · Enter · Esc dismiss"
		}
		tail = []string{th.faint.Render(hint)}
	}
	body := fit(head, choices, sel, tail, height-2)
	title := q.Header
	if len(req.Questions) > 1 {
		title += fmt.Sprintf(" (%d of %d)", d.index+1, len(req.Questions))
	}
	return frame(th, "Question: "+title, body, width)
}
