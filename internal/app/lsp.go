package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/format"
	"github.com/codeloop/codeloop/internal/lsp"
	"github.com/codeloop/codeloop/internal/tool"
	"github.com/codeloop/codeloop/internal/trust"
)

// openCodeTools returns the project's language servers (none run until a
// file is read or changed) and formatters, from the lsp and formatter
// config keys. In a project the user has not trusted, the built-in ones
// that run the project's own code are left out, and listed as held back
// where the project has what would start them.
func openCodeTools(cfg *config.Config, worktree, version string, trusted bool, log *slog.Logger) (*lsp.Manager, *format.Runner, []trust.Item, error) {
	servers, err := lsp.Resolve(cfg.LSP)
	if err != nil {
		return nil, nil, nil, err
	}
	formatters, err := format.Resolve(cfg.Formatter)
	if err != nil {
		return nil, nil, nil, err
	}
	var held []trust.Item
	if !trusted {
		servers = slices.DeleteFunc(servers, func(s lsp.Server) bool {
			if !s.RunsProjectCode {
				return false
			}
			for _, m := range s.RootMarkers {
				if p := filepath.Join(worktree, m); exists(p) {
					held = append(held, trust.Item{Kind: trust.KindLSP, Name: s.Name,
						Detail: "built in, runs the project's own code (" + strings.Join(s.Command, " ") + ")", File: p})
					break
				}
			}
			return true
		})
		formatters = slices.DeleteFunc(formatters, func(f format.Formatter) bool {
			if !f.RunsProjectCode {
				return false
			}
			for _, m := range f.Needs {
				if p := filepath.Join(worktree, m.Name); holds(p, m.Contains) {
					held = append(held, trust.Item{Kind: trust.KindFormatter, Name: f.Name,
						Detail: "built in, runs the project's own code (" + strings.Join(f.Command, " ") + ")", File: p})
					break
				}
			}
			return true
		})
	}
	m := lsp.New(lsp.Options{Servers: servers, Worktree: worktree, Version: version, Log: log})
	r := format.New(format.Options{Formatters: formatters, Worktree: worktree, Log: log, Untrusted: !trusted})
	return m, r, held, nil
}

// afterChange returns the tools' AfterChange hook: it formats each changed
// file, then collects the language servers' diagnostics for the files as
// formatted, and says what it did.
func afterChange(fm *format.Runner, lm *lsp.Manager, worktree string) func(ctx context.Context, call *tool.Call, paths []string) string {
	return func(ctx context.Context, call *tool.Call, paths []string) string {
		var notes []string
		for _, p := range paths {
			res := fm.Format(ctx, p)
			switch {
			case res.Err != nil:
				notes = append(notes, fmt.Sprintf("The formatter %s failed on %s, so the file is as written: %v", res.Formatter, relTo(worktree, p), res.Err))
			case res.Changed:
				notes = append(notes, fmt.Sprintf("Formatted %s with %s.", relTo(worktree, p), res.Formatter))
			}
		}
		if d := lm.Diagnose(ctx, paths); d != "" {
			notes = append(notes, d)
		}
		return strings.Join(notes, "\n")
	}
}

// warmOnRead wraps the read tool's Instructions hook so that reading a
// file also starts its language server and opens the file there, without
// waiting: diagnostics are then quick at the first edit.
func warmOnRead(lm *lsp.Manager, next func(ctx context.Context, call *tool.Call, path string) []string) func(ctx context.Context, call *tool.Call, path string) []string {
	if !lm.Enabled() {
		return next
	}
	return func(ctx context.Context, call *tool.Call, path string) []string {
		lm.Warm(path)
		if next == nil {
			return nil
		}
		return next(ctx, call, path)
	}
}

// relTo is p relative to root when it lies below it.
func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// instructionsHook is the read tool's Instructions hook: nested
// instruction files, and the language server warmed on the way unless
// opts say not to.
func instructionsHook(opts Options, lm *lsp.Manager, next func(ctx context.Context, call *tool.Call, path string) []string) func(ctx context.Context, call *tool.Call, path string) []string {
	if opts.NoLSPWarm {
		return next
	}
	return warmOnRead(lm, next)
}

// holds reports whether the file p exists and, when text is not empty,
// contains it.
func holds(p, text string) bool {
	if text == "" {
		return exists(p)
	}
	b, err := os.ReadFile(p)
	return err == nil && strings.Contains(string(b), text)
}
