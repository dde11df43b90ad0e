package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

// maxFindText caps the lines GET /find returns.
const maxFindText = 1000

// maxLogChars caps the message POST /log writes to the server's log.
const maxLogChars = 4096

// cut shortens s to at most n bytes, on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// workspace returns the client as a client.Workspace, or an
// UnsupportedError naming op when it is not one (a remote client).
func (s *Server) workspace(op string) (client.Workspace, error) {
	w, ok := s.c.(client.Workspace)
	if !ok {
		return nil, &client.UnsupportedError{Op: op, Reason: "this server's client cannot show the project's files"}
	}
	return w, nil
}

// wsRoute makes a route whose handler needs the client.Workspace.
func wsRoute[Q, B, R any](s *Server, rt wire.Route, fn func(ctx context.Context, w client.Workspace, r *http.Request, q Q, b B) (R, error)) *operation {
	return route(s, rt, func(r *http.Request, q Q, b B) (R, error) {
		w, err := s.workspace(rt.ID)
		if err != nil {
			var zero R
			return zero, err
		}
		return fn(r.Context(), w, r, q, b)
	})
}

func (s *Server) workspaceOps() []*operation {
	sid := func(r *http.Request) string { return r.PathValue("sessionID") }
	return []*operation{
		wsRoute(s, wire.ProjectList, func(ctx context.Context, w client.Workspace, _ *http.Request, _ none, _ none) ([]client.Project, error) {
			p, err := w.Project(ctx)
			if err != nil {
				return nil, err
			}
			return []client.Project{p}, nil
		}),
		wsRoute(s, wire.ProjectCurrent, func(ctx context.Context, w client.Workspace, _ *http.Request, _ none, _ none) (client.Project, error) {
			return w.Project(ctx)
		}),
		wsRoute(s, wire.VcsGet, func(ctx context.Context, w client.Workspace, _ *http.Request, _ none, _ none) (client.VCSInfo, error) {
			return w.VCS(ctx)
		}),
		wsRoute(s, wire.VcsStatus, func(ctx context.Context, w client.Workspace, _ *http.Request, _ none, _ none) ([]wire.VcsFileStatus, error) {
			fs, err := w.FileStatus(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]wire.VcsFileStatus, 0, len(fs))
			for _, f := range fs {
				out = append(out, wire.VcsFileStatus{File: f.Path, Additions: f.Added, Deletions: f.Removed, Status: f.Status})
			}
			return out, nil
		}),
		wsRoute(s, wire.FormatterStatus, func(ctx context.Context, w client.Workspace, _ *http.Request, _ none, _ none) ([]client.Formatter, error) {
			return list(w.Formatters(ctx))
		}),
		route(s, wire.ProviderAuth, func(*http.Request, none, none) (map[string][]any, error) {
			return map[string][]any{}, nil
		}),
		wsRoute(s, wire.SessionTodo, func(ctx context.Context, w client.Workspace, r *http.Request, _ none, _ none) ([]client.Todo, error) {
			return list(w.Todos(ctx, sid(r)))
		}),
		wsRoute(s, wire.SessionDiff, func(ctx context.Context, w client.Workspace, r *http.Request, q wire.DiffQuery, _ none) ([]client.FileDiff, error) {
			return list(w.SessionDiff(ctx, sid(r), q.MessageID))
		}),
		wsRoute(s, wire.FileList, func(ctx context.Context, w client.Workspace, _ *http.Request, q wire.PathQuery, _ none) ([]client.FileNode, error) {
			return list(w.ListFiles(ctx, q.Path))
		}),
		wsRoute(s, wire.FileRead, func(ctx context.Context, w client.Workspace, _ *http.Request, q wire.PathQuery, _ none) (client.FileContent, error) {
			if q.Path == "" {
				return client.FileContent{}, &badRequest{field: "path", msg: "query parameter path is required"}
			}
			return w.ReadFile(ctx, q.Path)
		}),
		wsRoute(s, wire.FileStatus, func(ctx context.Context, w client.Workspace, _ *http.Request, _ none, _ none) ([]client.FileStatus, error) {
			return list(w.FileStatus(ctx))
		}),
		wsRoute(s, wire.FindText, func(ctx context.Context, w client.Workspace, _ *http.Request, q wire.FindTextQuery, _ none) ([]client.TextMatch, error) {
			if q.Pattern == "" {
				return nil, &badRequest{field: "pattern", msg: "query parameter pattern is required"}
			}
			if q.Limit <= 0 || q.Limit > maxFindText {
				q.Limit = maxFindText
			}
			return list(w.FindText(ctx, q.Pattern, q.Limit))
		}),
		wsRoute(s, wire.FindFiles, func(ctx context.Context, w client.Workspace, _ *http.Request, q wire.FindFilesQuery, _ none) ([]string, error) {
			return list(w.FindFiles(ctx, q))
		}),
		wsRoute(s, wire.FsFind, func(ctx context.Context, w client.Workspace, _ *http.Request, q wire.FsFindQuery, _ none) (wire.FsFindResponse, error) {
			p, err := w.Project(ctx)
			if err != nil {
				return wire.FsFindResponse{}, err
			}
			found, err := w.FindFiles(ctx, client.FindFilesInput{Query: q.Query, Limit: q.Limit})
			if err != nil {
				return wire.FsFindResponse{}, err
			}
			out := wire.FsFindResponse{Location: wire.FsLocation{Directory: p.Worktree, Project: wire.FsProject{ID: p.ID, Directory: p.Worktree}},
				Data: make([]wire.FsEntry, 0, len(found))}
			for _, f := range found {
				e := wire.FsEntry{Path: f, Type: "file"}
				if strings.HasSuffix(f, "/") {
					e.Type = "directory"
				}
				out.Data = append(out.Data, e)
			}
			return out, nil
		}),
		wsRoute(s, wire.FindSymbols, func(ctx context.Context, w client.Workspace, _ *http.Request, q wire.FindSymbolsQuery, _ none) ([]client.Symbol, error) {
			return list(w.FindSymbols(ctx, q.Query))
		}),
		wsRoute(s, wire.ToolIDs, func(ctx context.Context, w client.Workspace, _ *http.Request, _ none, _ none) ([]string, error) {
			ts, err := w.Tools(ctx)
			if err != nil {
				return nil, err
			}
			ids := make([]string, 0, len(ts))
			for _, t := range ts {
				ids = append(ids, t.ID)
			}
			return ids, nil
		}),
		wsRoute(s, wire.ToolList, func(ctx context.Context, w client.Workspace, _ *http.Request, _ wire.ToolListQuery, _ none) ([]client.ToolInfo, error) {
			return list(w.Tools(ctx))
		}),
		wsRoute(s, wire.AppSkills, func(ctx context.Context, w client.Workspace, _ *http.Request, _ none, _ none) ([]client.Skill, error) {
			return list(w.Skills(ctx))
		}),
		route(s, wire.AppLog, func(r *http.Request, _ none, in wire.LogInput) (bool, error) {
			lvl := slog.LevelInfo
			switch strings.ToLower(in.Level) {
			case "debug":
				lvl = slog.LevelDebug
			case "warn":
				lvl = slog.LevelWarn
			case "error":
				lvl = slog.LevelError
			}
			s.log.Log(r.Context(), lvl, "client: "+cut(in.Message, maxLogChars), "service", cut(in.Service, 100), "remote", r.RemoteAddr)
			return true, nil
		}),
		route(s, wire.GlobalConfig, func(r *http.Request, _ none, _ none) (map[string]any, error) {
			return s.maskedConfig(r.Context())
		}),
	}
}

// maskedConfig is the project's resolved config with its secrets masked.
func (s *Server) maskedConfig(ctx context.Context) (map[string]any, error) {
	raw, err := s.c.Config(ctx)
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	maskSecrets(tree)
	return tree, nil
}

// unsupportedOps answers OpenCode's routes that codeloop does not serve
// with a 501 UnsupportedError, leaving out those served by ops.
func (s *Server) unsupportedOps(ops []*operation) []*operation {
	served := map[string]bool{}
	for _, op := range ops {
		served[op.Method+" "+wildcards.ReplaceAllString(op.Path, "{}")] = true
	}
	var out []*operation
	for _, u := range wire.Unsupported() {
		if served[u.Method+" "+wildcards.ReplaceAllString(u.Pattern, "{}")] {
			continue
		}
		err := &client.UnsupportedError{Op: u.ID, Reason: u.Reason}
		out = append(out, &operation{Method: u.Method, Path: u.Pattern, ID: u.ID, Summary: u.Summary, Unsupported: true,
			handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.writeError(w, r, err) })})
	}
	return out
}
