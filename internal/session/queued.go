package session

import (
	"strings"

	"github.com/codeloop/codeloop/internal/message"
)

// wrapQueued returns msgs with the text of the user's messages newer than
// the finished assistant message lastFinished wrapped in a system reminder:
// they arrived while the loop was working, and the model is asked to
// address them and carry on with its tasks. Only the request changes; the
// stored messages and msgs themselves are left as they are.
func wrapQueued(msgs []message.Message, lastFinished string) []message.Message {
	var out []message.Message
	for i, m := range msgs {
		if m.Info.Role != message.RoleUser || m.Info.ID <= lastFinished {
			continue
		}
		var parts []message.Part
		for j, p := range m.Parts {
			t, ok := p.(*message.TextPart)
			if !ok || t.Synthetic || t.Ignored || strings.TrimSpace(t.Text) == "" {
				continue
			}
			if parts == nil {
				parts = append([]message.Part(nil), m.Parts...)
			}
			c := *t
			c.Text = queuedReminder(t.Text)
			parts[j] = &c
		}
		if parts == nil {
			continue
		}
		if out == nil {
			out = append([]message.Message(nil), msgs...)
		}
		out[i].Parts = parts
	}
	if out == nil {
		return msgs
	}
	return out
}

// queuedReminder wraps a message the user sent while the loop worked.
func queuedReminder(text string) string {
	return "<system-reminder>\nThe user sent the following message:\n" + text +
		"\n\nPlease address this message and continue with your tasks.\n</system-reminder>"
}
