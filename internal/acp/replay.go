package acp

import (
	"context"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// replay sends a loaded session's history as updates: the user's messages
// as user_message_chunk, the answers' text and reasoning as
// agent_message_chunk and agent_thought_chunk, and every tool call as a
// tool_call in its final state.
func (a *Agent) replay(ctx context.Context, s *session) error {
	msgs, err := s.c.Messages(ctx, s.id, client.MessagesOptions{})
	if err != nil {
		return err
	}
	for _, m := range msgs {
		for _, u := range historyUpdates(m, s.dir) {
			if err := a.update(ctx, s.id, u); err != nil {
				return err
			}
		}
	}
	return nil
}

// historyUpdates are the updates that show one stored message.
func historyUpdates(m client.Message, dir string) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	user := m.Info.Role == client.RoleUser
	for _, p := range m.Parts {
		switch p.Type {
		case client.PartText:
			if p.Synthetic || p.Ignored || strings.TrimSpace(p.Text) == "" {
				continue
			}
			if user {
				out = append(out, sdk.UpdateUserMessageText(p.Text))
			} else {
				out = append(out, sdk.UpdateAgentMessageText(p.Text))
			}
		case client.PartReasoning:
			if !user && strings.TrimSpace(p.Text) != "" {
				out = append(out, sdk.UpdateAgentThoughtText(p.Text))
			}
		case client.PartFile:
			if user {
				if b, ok := fileBlock(p); ok {
					out = append(out, sdk.UpdateUserMessage(b))
				}
			}
		case client.PartTool:
			if !user {
				out = append(out, toolCallStart(p))
			}
		}
	}
	return out
}

// fileBlock shows a file the user attached: an image as an image, a
// local file as a link to it.
func fileBlock(p client.Part) (sdk.ContentBlock, bool) {
	if rest, ok := strings.CutPrefix(p.URL, "data:"); ok && strings.HasPrefix(p.Mime, "image/") {
		if _, data, ok := strings.Cut(rest, ";base64,"); ok {
			return sdk.ImageBlock(data, p.Mime), true
		}
	}
	if strings.HasPrefix(p.URL, "file:") {
		name := p.Filename
		if name == "" {
			name = p.URL
		}
		return sdk.ResourceLinkBlock(name, p.URL), true
	}
	if p.Filename != "" {
		return sdk.TextBlock("@" + p.Filename), true
	}
	return sdk.ContentBlock{}, false
}
