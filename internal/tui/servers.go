package tui

import (
	"errors"
	"fmt"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// serverPoll is how often the view asks for the MCP and language
// servers' states.
const serverPoll = 5 * time.Second

// serversMsg carries the MCP and language servers' states; then says
// whether to ask again after serverPoll.
type serversMsg struct {
	mcp  map[string]client.MCPStatus
	lsp  []client.LSPStatus
	err  error
	then bool
}

// fetchServers asks for the servers' states, after wait when it is not
// zero.
func (m *Model) fetchServers(wait time.Duration) tea.Cmd {
	c, ctx := m.c, m.ctx
	if c == nil {
		return nil
	}
	fetch := func() tea.Msg {
		var out serversMsg
		out.then = true
		if out.mcp, out.err = c.MCPStatus(ctx); out.err != nil {
			return out
		}
		out.lsp, out.err = c.LSPStatus(ctx)
		return out
	}
	if wait == 0 {
		return fetch
	}
	return tea.Tick(wait, func(time.Time) tea.Msg { return fetch() })
}

// serversMsg keeps the servers' states and asks again later; a server
// that cannot tell (an older one) is not asked again.
func (m *Model) serversMsg(msg serversMsg) tea.Cmd {
	switch {
	case msg.err == nil:
		m.mcp, m.lsp = msg.mcp, msg.lsp
	case isCanceled(msg.err), errors.Is(msg.err, client.ErrNotFound), errors.Is(msg.err, client.ErrUnsupported):
		return nil
	}
	if !msg.then {
		return nil
	}
	return m.fetchServers(serverPoll)
}

// mcpLines are the sidebar's MCP section: one line a server, in name
// order, with its state.
func mcpLines(servers map[string]client.MCPStatus, w int, th *theme) []string {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, n := range names {
		st := servers[n]
		dot, label := th.faint.Render("○"), st.Status
		switch st.Status {
		case client.MCPConnected:
			dot = th.ok.Render("●")
		case client.MCPFailed:
			dot = th.bad.Render("●")
			if st.Error != "" {
				label += ": " + st.Error
			}
		case client.MCPNeedsAuth:
			dot, label = th.warn.Render("●"), "needs auth: codeloop mcp auth "+n
		case client.MCPConnecting:
			dot = th.warn.Render("○")
		}
		out = append(out, truncate(dot+" "+n+" "+th.faint.Render(label), w))
	}
	return out
}

// lspLines are the sidebar's LSP section: one line a server and root.
func lspLines(servers []client.LSPStatus, w int, th *theme) []string {
	out := make([]string, 0, len(servers))
	for _, s := range servers {
		dot := th.ok.Render("●")
		if s.Status != client.LSPConnected {
			dot = th.bad.Render("●")
		}
		name := s.Name
		if s.Root != "" && s.Root != "." {
			name += " " + th.faint.Render(s.Root)
		}
		if s.Status != client.LSPConnected {
			name += " " + th.faint.Render(s.Status)
		}
		out = append(out, truncate(dot+" "+name, w))
	}
	return out
}

// serverProblems says which MCP servers failed or wait for
// authorisation, for the status line of a view without the sidebar; ""
// when none did.
func serverProblems(servers map[string]client.MCPStatus) string {
	bad := 0
	for _, st := range servers {
		if st.Status == client.MCPFailed || st.Status == client.MCPNeedsAuth {
			bad++
		}
	}
	switch bad {
	case 0:
		return ""
	case 1:
		return "1 MCP server down"
	}
	return fmt.Sprintf("%d MCP servers down", bad)
}
