package tool

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
)

type applyPatchParams struct {
	PatchText string `json:"patchText" jsonschema:"The full patch text that describes all changes to be made"`
}

func newApplyPatch(env Env, locks *fileLocks) Tool {
	return Must(Def[applyPatchParams]{
		Traits:      Traits{Kind: KindEdit, Contained: true},
		Touches:     patchTouches,
		Summary:     patchSummary,
		ID:          "apply_patch",
		Description: describe("apply_patch"),
		Truncate:    env.Truncator,
		Run: func(ctx context.Context, call *Call, p applyPatchParams) (*Result, error) {
			return runApplyPatch(ctx, env, locks, call, p.PatchText)
		},
	})
}

func runApplyPatch(ctx context.Context, env Env, locks *fileLocks, call *Call, text string) (*Result, error) {
	if strings.TrimSpace(text) == "" {
		return nil, &PatchError{"patchText is empty"}
	}
	ops, err := parsePatch(text)
	if err != nil {
		return nil, err
	}
	base := baseDir(call)
	var targets []target
	for _, op := range ops {
		targets = append(targets, target{path: absPath(base, op.path)})
		if op.moveTo != "" {
			targets = append(targets, target{path: absPath(base, op.moveTo)})
		}
	}
	external, err := askExternalDirs(ctx, call, targets...)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, t := range targets {
		paths = append(paths, t.path)
	}
	paths = sortedUnique(paths)
	for _, p := range paths {
		// Asked before the patch reads them, as in changeFile.
		if _, err := askSecretEdit(ctx, env, call, p); err != nil {
			return nil, err
		}
	}
	unlock, err := locks.lockAll(ctx, paths)
	if err != nil {
		return nil, err
	}
	defer unlock()

	plan, err := planPatch(base, ops, func(path string) ([]byte, error) { return readText(ctx, call, path) })
	if err != nil {
		return nil, err
	}
	var (
		rel     []string
		diffs   []string
		files   []map[string]any
		changes []Change
		summary []string
	)
	for _, c := range plan.changes {
		name := relPath(call, c.dest)
		diff := unifiedDiff(c.dest, c.before, c.after)
		if c.kind == 'D' {
			diff = unifiedDiff(c.path, c.before, "")
		}
		diffs = append(diffs, diff)
		rel = append(rel, relPath(call, c.path))
		if c.dest != c.path {
			rel = append(rel, name)
		}
		f := fileDiff(c.dest, diff)
		f["relativePath"] = name
		f["type"] = map[byte]string{'A': "add", 'M': "update", 'D': "delete"}[c.kind]
		if c.dest != c.path {
			f["type"] = "move"
			f["movePath"] = c.dest
			f["file"] = c.path
		}
		files = append(files, f)
		changes = append(changes, patchFileChange(c, diff))
		summary = append(summary, fmt.Sprintf("%c %s", c.kind, name))
	}
	diff := strings.Join(diffs, "\n")
	req := permission.Request{
		Permission: "edit",
		Patterns:   sortedUnique(rel),
		Always:     []string{"*"},
		Metadata:   map[string]any{"filepath": strings.Join(sortedUnique(rel), ", "), "diff": diff},
	}
	protectEdit(call, paths, &req)
	if err := call.Ask(ctx, req); err != nil {
		return nil, err
	}
	if err := env.beforeChange(ctx, call, plan.targets()); err != nil {
		return nil, err
	}
	var write func(path, content string) error
	if call.Files != nil {
		write = func(path, content string) error { return writeText(ctx, call, path, content, nil) }
	}
	if err := plan.write(write, landingCheck(call, external, req.Protected)); err != nil {
		return nil, fmt.Errorf("applying the patch: %w", err)
	}
	for _, p := range plan.targets() {
		publishEdited(ctx, env, call, p)
	}
	note := env.afterChange(ctx, call, plan.targets())
	for i, c := range plan.changes {
		// A formatter changed the file: the diff shows what it holds now.
		if now, err := readRegular(c.dest); c.kind != 'D' && err == nil && string(now) != c.after {
			d := unifiedDiff(c.dest, c.before, string(now))
			diffs[i] = d
			add, del := diffStats(d)
			files[i]["patch"], files[i]["additions"], files[i]["deletions"] = d, add, del
			c.after = string(now)
			changes[i] = patchFileChange(c, d)
			diff = strings.Join(diffs, "\n")
		}
	}
	return &Result{
		Title:    strings.Join(summary, ", "),
		Output:   "Success. Updated the following files:\n" + strings.Join(summary, "\n") + note,
		Metadata: map[string]any{"diff": diff, "files": files, ChangesKey: changes},
	}, nil
}

// patchFileChange is the Change of one file of a patch.
func patchFileChange(c patchChange, diff string) Change {
	switch {
	case c.dest != c.path:
		return newChange(ChangeMove, c.path, c.dest, diff, c.before, c.after)
	case c.kind == 'A':
		return newChange(ChangeAdd, c.path, "", diff, c.before, c.after)
	case c.kind == 'D':
		return newChange(ChangeDelete, c.path, "", diff, c.before, "")
	}
	return newChange(ChangeUpdate, c.path, "", diff, c.before, c.after)
}

func sortedUnique(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// patchSummary names the files a patch changes, relative to dir, each
// after the letter of its change (A add, M update, D delete, R move),
// as the call's title does once it is done.
func patchSummary(p applyPatchParams, dir string) string {
	ops, err := parsePatch(p.PatchText)
	if err != nil {
		return ""
	}
	var names []string
	for _, op := range ops {
		path := shown(dir, absPath(dir, op.path))
		switch {
		case op.moveTo != "":
			names = append(names, "R "+path+" → "+shown(dir, absPath(dir, op.moveTo)))
		case op.kind == 'U':
			names = append(names, "M "+path)
		default:
			names = append(names, string(op.kind)+" "+path)
		}
	}
	return strings.Join(names, ", ")
}

// patchTouches returns the files a patch changes: each added, updated,
// deleted or moved file (a move touches both paths). A patch that does
// not parse touches nothing that can be known.
func patchTouches(p applyPatchParams, dir string) []Touch {
	ops, err := parsePatch(p.PatchText)
	if err != nil {
		return nil
	}
	var out []Touch
	for _, op := range ops {
		out = append(out, touch(dir, op.path, true)...)
		out = append(out, touch(dir, op.moveTo, true)...)
	}
	return out
}
