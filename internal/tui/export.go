package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// transcriptMarkdown writes a session's messages as Markdown: the
// user's messages and the model's text, and each tool call as a line
// with its output in a fenced block.
func transcriptMarkdown(title string, msgs []client.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", title)
	for _, msg := range msgs {
		role := "Assistant"
		if msg.Info.Role == client.RoleUser {
			role = "User"
		}
		fmt.Fprintf(&b, "\n## %s\n", role)
		for _, p := range msg.Parts {
			switch p.Type {
			case client.PartText:
				if !p.Synthetic && !p.Ignored && strings.TrimSpace(p.Text) != "" {
					fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(p.Text))
				}
			case client.PartFile:
				fmt.Fprintf(&b, "\nAttached: %s\n", p.Filename)
			case client.PartTool:
				st := p.State
				if st == nil {
					continue
				}
				in, _ := json.Marshal(st.Input)
				fmt.Fprintf(&b, "\nTool %s (%s): %s\n", p.Tool, st.Status, firstLine(toolSummaryOr(p, st, string(in))))
				out := st.Output
				if st.Status == client.ToolError {
					out = st.Error
				}
				if strings.TrimSpace(out) != "" {
					fmt.Fprintf(&b, "\n```\n%s\n```\n", strings.TrimRight(out, "\n"))
				}
			}
		}
	}
	return b.String()
}

func toolSummaryOr(p client.Part, st *client.ToolState, fallback string) string {
	if s := toolSummary(p, st); s != "" {
		return s
	}
	return fallback
}

// export writes the session to codeloop-<session>.md in the project's
// directory (the working directory when it is not known).
func (m *Model) export() tea.Cmd {
	if m.sess == nil {
		return m.notify("there is nothing to export yet", true)
	}
	c, ctx, sess, dir := m.c, m.ctx, *m.sess, m.opts.Dir
	return func() tea.Msg {
		msgs, err := c.Messages(ctx, sess.ID, client.MessagesOptions{})
		if err != nil {
			return resultMsg{what: "exporting", err: err}
		}
		path := filepath.Join(dir, "codeloop-"+sess.ID+".md")
		if err := os.WriteFile(path, []byte(transcriptMarkdown(sess.Title, msgs)), 0o644); err != nil {
			return resultMsg{what: "exporting", err: err}
		}
		return resultMsg{what: "exporting", ok: "exported to " + path}
	}
}
