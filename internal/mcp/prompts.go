package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codeloop/codeloop/internal/tool"
)

// Prompt is a server's prompt, offered as the slash command
// <server>:<prompt>.
type Prompt struct {
	Server      string // the server's configured name
	Name        string // the server's name for the prompt
	Title       string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a prompt; as a command argument it is
// $1, $2, ... in the order listed.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

func newPrompt(server string, p *sdk.Prompt) Prompt {
	out := Prompt{Server: server, Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		if a != nil {
			out.Arguments = append(out.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
	}
	return out
}

// Command is the slash-command name of the prompt.
func (p Prompt) Command() string { return sanitize(p.Server) + ":" + sanitize(p.Name) }

// Hints are the placeholders of the prompt's arguments: $1 ... $n.
func (p Prompt) Hints() []string {
	out := make([]string, len(p.Arguments))
	for i := range p.Arguments {
		out[i] = fmt.Sprintf("$%d", i+1)
	}
	return out
}

// Prompts returns the prompts of every connected server, sorted by command.
func (m *Manager) Prompts() []Prompt {
	m.mu.RLock()
	var out []Prompt
	for _, s := range m.servers {
		if s.conn != nil {
			out = append(out, s.conn.prompts...)
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(a, b Prompt) int { return strings.Compare(a.Command(), b.Command()) })
	return out
}

// PromptMessage is one message of a prompt the server expanded.
type PromptMessage struct {
	Role        string // user or assistant
	Text        string
	Attachments []tool.Attachment
}

// GetPrompt asks server to expand its prompt name with args.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) ([]PromptMessage, error) {
	s, c, err := m.session(server)
	if err != nil {
		return nil, err
	}
	ctx, finish, d := m.requestContext(ctx, s)
	defer finish()
	res, err := c.session.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, m.requestError(s, c, "the prompt "+name, err, d)
	}
	var out []PromptMessage
	for _, msg := range res.Messages {
		if msg == nil {
			continue
		}
		text, atts := contentToText([]sdk.Content{msg.Content})
		out = append(out, PromptMessage{Role: string(msg.Role), Text: text, Attachments: atts})
	}
	return out, nil
}

// PromptTemplate returns the command template of a prompt: the prompt
// expanded with its arguments set to $1 ... $n, its messages' text joined
// by newlines. The command layer then substitutes the user's arguments.
func (m *Manager) PromptTemplate(ctx context.Context, p Prompt) (string, error) {
	args := map[string]string{}
	for i, a := range p.Arguments {
		args[a.Name] = fmt.Sprintf("$%d", i+1)
	}
	msgs, err := m.GetPrompt(ctx, p.Server, p.Name, args)
	if err != nil {
		return "", err
	}
	texts := make([]string, 0, len(msgs))
	for _, msg := range msgs {
		if msg.Text != "" {
			texts = append(texts, msg.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}
