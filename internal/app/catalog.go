package app

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/codeloop/codeloop/internal/lsp"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/provider"
	"github.com/codeloop/codeloop/internal/store"
)

// ModelCatalog is what a model picker shows: the usable providers with
// their models, the variants of each reasoning model, the default model
// and the ones used recently, the last first.
type ModelCatalog struct {
	Providers []*provider.Info
	Variants  map[string][]string // by "provider/model"
	Default   *message.ModelRef
	Recent    []message.ModelRef
}

// ModelCatalog returns the model catalog.
func (a *App) ModelCatalog(ctx context.Context) (ModelCatalog, error) {
	providers, err := a.Models.Providers(ctx)
	if err != nil {
		return ModelCatalog{}, err
	}
	out := ModelCatalog{Providers: providers, Variants: map[string][]string{}}
	for _, p := range providers {
		for _, m := range p.Models() {
			if !m.Reasoning {
				continue
			}
			key := p.ID + "/" + m.Key
			if vs, _ := a.Models.Variants(ctx, key); len(vs) > 0 {
				out.Variants[key] = vs
			}
		}
	}
	if def, err := a.Models.Default(ctx); err == nil {
		if ref, ok := ParseModel(def); ok {
			out.Default = &ref
		}
	}
	for _, r := range a.Models.Recent() {
		if ref, ok := ParseModel(r); ok {
			out.Recent = append(out.Recent, ref)
		}
	}
	return out, nil
}

// Project returns the project's stored record with the open project's id
// and worktree; before it is first stored, only those are set.
func (a *App) Project(ctx context.Context) (store.Project, error) {
	p, err := a.Store.GetProject(ctx, a.ProjectID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.Project{}, err
	}
	p.ID, p.Worktree = a.ProjectID, a.Worktree
	return p, nil
}

// LanguageServers lists the language servers started so far, their roots
// relative to the project's directory.
func (a *App) LanguageServers() []lsp.Status {
	if a.LSP == nil {
		return nil
	}
	list := a.LSP.Status()
	for i, st := range list {
		if rel, err := filepath.Rel(a.Dir, st.Root); err == nil {
			list[i].Root = filepath.ToSlash(rel)
		}
	}
	return list
}

// FileQuery asks FindFiles for the project's files and directories whose
// name matches Query. Type "file" or "directory" asks for those alone;
// otherwise files, and directories unless NoDirs. Limit is 100 when it is
// not in 1..1000.
type FileQuery struct {
	Query  string
	Type   string
	NoDirs bool
	Limit  int
}

// FindFiles finds the project's files and directories by name.
func (a *App) FindFiles(ctx context.Context, q FileQuery) ([]string, error) {
	files, dirs := true, !q.NoDirs
	switch q.Type {
	case "file":
		dirs = false
	case "directory":
		files, dirs = false, true
	}
	limit := q.Limit
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	return a.ProjectFiles().FindFiles(ctx, q.Query, files, dirs, limit)
}
