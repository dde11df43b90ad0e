package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// contextMsg carries a session's context breakdown.
type contextMsg struct {
	usage client.ContextUsage
	err   error
}

// openContext asks for what fills the session's context window.
func (m *Model) openContext() tea.Cmd {
	if m.sess == nil {
		return m.notify("nothing fills the context yet: send a message first", true)
	}
	c, ctx, id := m.c, m.ctx, m.sess.ID
	return func() tea.Msg {
		u, err := c.ContextUsage(ctx, id)
		return contextMsg{usage: u, err: err}
	}
}

func (m *Model) contextMsg(msg contextMsg) tea.Cmd {
	if msg.err != nil {
		return m.failed("reading the context", msg.err)
	}
	m.dialog = contextDialog(msg.usage, m.opts.Dir)
	return nil
}

// contextDialog shows what fills the context window: each part with its
// tokens and share, what a compaction would free, and the cost.
func contextDialog(u client.ContextUsage, dir string) *listDialog {
	var text []string
	if u.Model != nil {
		line := "Model " + u.Model.ProviderID + "/" + u.Model.ModelID
		if u.Limit > 0 {
			line += " · window " + tokenCount(u.Limit) + " tokens"
		}
		text = append(text, line)
	}
	if len(u.Parts) == 0 {
		text = append(text, "Nothing fills the context yet: send a message first.")
		return &listDialog{title: "Context", text: text}
	}
	if u.Used > 0 {
		line := "The model counted " + tokenCount(u.Used) + " tokens at its last step"
		if u.Limit > 0 {
			line += fmt.Sprintf(", %d%% of the window", percentOf(u.Used, u.Limit))
		}
		text = append(text, line+".")
	}
	var total int64
	for _, p := range u.Parts {
		total += p.Tokens
	}
	text = append(text, "", fmt.Sprintf("%-28s %8s %6s", "Estimated", "tokens", "share"))
	for _, p := range u.Parts {
		share := percentOf(p.Tokens, total)
		label := contextLabel(p, dir)
		if cellWidth(label) > 28 {
			label = "…" + tailCells(label, 27) // a path's end names the file
		}
		text = append(text, fmt.Sprintf("%-28s %8s %5d%% %s", label, tokenCount(p.Tokens), share, bar(share, 10)))
	}
	line := fmt.Sprintf("%-28s %8s", "Total", tokenCount(total))
	if u.Limit > 0 {
		line += fmt.Sprintf(" %5d%% of the window", percentOf(total, u.Limit))
	}
	text = append(text, line, "")
	if u.Compactable > 0 {
		text = append(text, fmt.Sprintf("A compaction (/compact) would replace about %s tokens of older", tokenCount(u.Compactable)),
			"history with a summary; the last two turns stay as they are.")
	} else {
		text = append(text, "A compaction would free little: the history is no longer than the two", "turns it keeps.")
	}
	text = append(text, "", fmt.Sprintf("Cost: $%.4f so far · $%.4f the last turn", u.Cost, u.TurnCost))
	return &listDialog{title: "Context", text: text}
}

// contextLabel names a part of the context.
func contextLabel(p client.ContextPart, dir string) string {
	switch p.Kind {
	case client.ContextSystem:
		return "System prompt"
	case client.ContextTools:
		return "Tools"
	case client.ContextMessages:
		return "Messages"
	case client.ContextToolOutput:
		return "Tool outputs"
	case client.ContextInstruction:
		if strings.Contains(p.Name, "://") {
			return p.Name
		}
		return relPath(dir, p.Name)
	}
	return p.Kind
}

// percentOf is n as a whole percentage of of, 0 when of is not positive.
func percentOf(n, of int64) int {
	if of <= 0 {
		return 0
	}
	return int((n*100 + of/2) / of)
}

// bar draws pct percent as a bar of w cells.
func bar(pct, w int) string {
	n := (pct*w + 50) / 100
	if pct > 0 && n == 0 {
		n = 1
	}
	return strings.Repeat("█", min(n, w))
}
