package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// permDialog is the state of the permission dialog for the first pending
// request.
type permDialog struct {
	id      string
	sel     int
	typing  bool // typing the message of a rejection
	message string
}

// permChoice is an answer the permission dialog offers.
type permChoice struct{ label, reply, scope string }

// permChoices() are the answers the dialog offers, in order.
func permChoices() []permChoice {
	return []permChoice{
		{"Allow once", client.ReplyOnce, ""},
		{"Allow always in this session", client.ReplyAlways, client.ScopeSession},
		{"Allow always in this project", client.ReplyAlways, client.ScopeProject},
		{"Allow always everywhere", client.ReplyAlways, client.ScopeGlobal},
		{"Reject", client.ReplyReject, ""},
		{"Reject and tell the model what to do instead", client.ReplyReject, ""},
	}
}

// choiceLabel is what a choice says for req: an "always" answer names
// the patterns it approves from then on, and where that is kept.
func choiceLabel(ch permChoice, req client.PermissionRequest) string {
	if ch.reply != client.ReplyAlways {
		return ch.label
	}
	pats := req.Always
	if len(pats) == 0 {
		pats = req.Patterns
	}
	label := ch.label + ": " + req.Permission + " " + strings.Join(pats, ", ")
	switch ch.scope {
	case client.ScopeSession:
		label += " (kept with this session)"
	case client.ScopeProject:
		label += " (saved for this project)"
	case client.ScopeGlobal:
		label += " (saved for every project)"
	}
	return label
}

// callWorkdir is the directory a command's request says it runs in,
// else the project's.
func (m *Model) callWorkdir(req client.PermissionRequest) string {
	if w, _ := req.Metadata["workdir"].(string); w != "" {
		return w
	}
	return m.opts.Dir
}

// isCreation reports whether a file change's diff creates the file: its
// one hunk starts from nothing.
func isCreation(diff string) bool {
	return strings.Count(diff, "\n@@ ") == 1 && strings.Contains(diff, "\n@@ -0,0 ")
}

func (m *Model) permKey(k tea.KeyPressMsg) tea.Cmd {
	req := m.asks[0]
	if m.perm.id != req.ID {
		m.perm = permDialog{id: req.ID}
	}
	p := &m.perm
	if p.typing {
		switch k.String() {
		case "esc":
			p.typing = false
		case "ctrl+u":
			p.message = ""
		case "enter":
			return m.replyPermission(req, client.PermissionReply{Reply: client.ReplyReject, Message: strings.TrimSpace(p.message)})
		case "backspace":
			if r := []rune(p.message); len(r) > 0 {
				p.message = string(r[:len(r)-1])
			}
		default:
			p.message += k.Text
		}
		return nil
	}
	switch k.String() {
	case "up", "k":
		p.sel = (p.sel - 1 + len(permChoices())) % len(permChoices())
	case "down", "j":
		p.sel = (p.sel + 1) % len(permChoices())
	case "y":
		return m.replyPermission(req, client.PermissionReply{Reply: client.ReplyOnce})
	case "a":
		return m.replyPermission(req, client.PermissionReply{Reply: client.ReplyAlways, Scope: client.ScopeSession})
	case "n":
		return m.replyPermission(req, client.PermissionReply{Reply: client.ReplyReject})
	case "esc":
		return m.escape()
	case "enter":
		ch := permChoices()[p.sel]
		if p.sel == len(permChoices())-1 {
			p.typing = true
			return nil
		}
		return m.replyPermission(req, client.PermissionReply{Reply: ch.reply, Scope: ch.scope})
	}
	return nil
}

func (m *Model) replyPermission(req client.PermissionRequest, r client.PermissionReply) tea.Cmd {
	m.dropAsk(req.ID)
	return m.call("answering the permission request", "", func(ctx context.Context, c client.Client) error {
		return c.ReplyPermission(ctx, req.ID, r)
	})
}

// permView renders the permission dialog in at most height lines: when
// space is short the blank lines and hints go first, then the choices
// far from the selected one.
func (m *Model) permView(width, height int) []string {
	req := m.asks[0]
	th := &m.theme
	var head []string
	what := strings.Join(req.Patterns, ", ")
	diff, _ := req.Metadata["diff"].(string)
	switch req.Permission {
	case "bash":
		head = append(head, "Run "+what)
		if d, _ := req.Metadata["description"].(string); d != "" {
			head = append(head, th.faint.Render(d))
		}
		wd := relPath(m.opts.Dir, m.callWorkdir(req))
		if wd == "." || wd == "" {
			wd = "the project's directory"
		}
		head = append(head, th.faint.Render("in "+wd))
	case "edit":
		if isCreation(diff) {
			head = append(head, "Create "+what)
		} else {
			head = append(head, "Change "+what)
		}
	case "external_directory":
		head = append(head, "Reach outside the project: "+what)
	default:
		head = append(head, req.Permission+": "+what)
	}
	switch {
	case req.Protected:
		head = append(head, th.warn.Render("Asked every time: "+req.Reason))
	case req.Reason != "":
		head = append(head, th.warn.Render("It cannot be checked against your rules: "+req.Reason))
	}
	if !m.current(req.SessionID) {
		head = append(head, th.faint.Render("asked by a sub-agent"))
	}
	var choices, tail []string
	sel := 0
	if m.perm.typing && m.perm.id == req.ID {
		choices = []string{"What should the model do instead?", "> " + m.perm.message + "▏"}
		sel = 1
		tail = []string{th.faint.Render("Enter send · Esc back")}
	} else {
		if m.perm.id == req.ID {
			sel = m.perm.sel
		}
		for i, ch := range permChoices() {
			label := choiceLabel(ch, req)
			line := "  " + label
			if i == sel {
				line = th.selected.Render("› " + label)
			}
			choices = append(choices, line)
		}
		tail = []string{th.faint.Render("↑↓ Enter · y once · a always · n reject")}
	}
	if len(m.asks) > 1 {
		tail = append(tail, th.faint.Render(fmt.Sprintf("%d more waiting", len(m.asks)-1)))
	}
	// A file change shows its diff, as much as fits beside the choices.
	if d := diff; d != "" && !m.perm.typing {
		ls := renderDiff(parseDiff(d), max(width-4, 1), width, th)
		room := height - 2 - len(head) - len(choices) - len(tail) - 2
		if len(ls) > room {
			if room < 3 {
				ls = nil
			} else {
				more := len(ls) - room + 1
				ls = append(ls[:room-1:room-1], th.faint.Render(fmt.Sprintf("… %d more lines", more)))
			}
		}
		head = append(head, ls...)
	}
	return frame(th, "Permission needed: "+req.Permission, fit(head, choices, sel, tail, height-2), width)
}
