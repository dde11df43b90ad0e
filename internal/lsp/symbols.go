package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"go.lsp.dev/protocol"
)

// WorkspaceSymbol is a symbol a language server found in the project.
type WorkspaceSymbol struct {
	Name string
	Kind int // the protocol's SymbolKind
	// Path is the file's absolute path, inside the worktree.
	Path  string
	Range protocol.Range
}

// WorkspaceSymbols asks every running server for the workspace's symbols
// matching query and returns those in files inside the worktree, at most
// MaxQueryResults. No server is started for it: with none running the
// answer is empty. A server that fails or does not answer in time is
// left out.
func (m *Manager) WorkspaceSymbols(ctx context.Context, query string) []WorkspaceSymbol {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	var clients []*client
	for _, in := range m.instances {
		if in.state == Running && in.client.alive() {
			clients = append(clients, in.client)
		}
	}
	m.mu.Unlock()
	var out []WorkspaceSymbol
	for _, c := range clients {
		qctx, cancel := context.WithTimeout(ctx, QueryTimeout)
		var raw json.RawMessage
		err := c.call(qctx, protocol.MethodWorkspaceSymbol, protocol.WorkspaceSymbolParams{Query: query}, &raw)
		cancel()
		if err != nil {
			continue
		}
		var items []struct {
			Name     string              `json:"name"`
			Kind     protocol.SymbolKind `json:"kind"`
			Location *protocol.Location  `json:"location"`
		}
		if json.Unmarshal(raw, &items) != nil {
			continue
		}
		for _, it := range items {
			if it.Location == nil {
				continue
			}
			p := it.Location.URI.Filename()
			if !within(p, m.opts.Worktree) || slices.ContainsFunc(out, func(s WorkspaceSymbol) bool {
				return s.Name == it.Name && s.Path == p && s.Range == it.Location.Range
			}) {
				continue
			}
			out = append(out, WorkspaceSymbol{Name: it.Name, Kind: int(it.Kind), Path: p, Range: it.Location.Range})
			if len(out) == MaxQueryResults {
				return out
			}
		}
	}
	return out
}
