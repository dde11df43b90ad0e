package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/permission"
)

const bom = "\uFEFF"

type writeParams struct {
	Content  string `json:"content" jsonschema:"The whole content of the file"`
	FilePath string `json:"filePath" jsonschema:"Absolute path of the file"`
}

func newWrite(env Env, locks *fileLocks) Tool {
	return Must(Def[writeParams]{
		Traits:      Traits{Kind: KindEdit, Contained: true},
		Touches:     func(p writeParams, dir string) []Touch { return touch(dir, p.FilePath, true) },
		Summary:     func(p writeParams, dir string) string { return shown(dir, p.FilePath) },
		ID:          "write",
		Description: describe("write"),
		Truncate:    env.Truncator,
		Run: func(ctx context.Context, call *Call, p writeParams) (*Result, error) {
			ch, err := changeFile(ctx, env, locks, call, p.FilePath, func(_, old string, _ bool) (string, error) {
				if strings.HasPrefix(old, bom) && !strings.HasPrefix(p.Content, bom) {
					return bom + p.Content, nil
				}
				return p.Content, nil
			})
			if err != nil {
				return nil, err
			}
			return &Result{
				Title:  relPath(call, ch.path),
				Output: "Wrote file successfully." + ch.note,
				Metadata: map[string]any{
					"filepath": ch.path,
					"exists":   ch.existed,
					"diff":     ch.diff,
					"filediff": fileDiff(ch.path, ch.diff),
					ChangesKey: []Change{ch.change},
				},
			}, nil
		},
	})
}

// fileChange is what changeFile did.
type fileChange struct {
	path    string // absolute
	existed bool
	note    string // what env.AfterChange said, as a paragraph
	diff    string
	change  Change
}

// changeFile is how write and edit change a file: it resolves filePath
// against the call's directory, asks external_directory permission when it
// lies outside the project, locks the file, reads what it holds, computes
// the new content with change (given the absolute path), asks edit permission showing the diff,
// writes the file and publishes file.edited.
func changeFile(ctx context.Context, env Env, locks *fileLocks, call *Call, filePath string,
	change func(path, old string, existed bool) (string, error)) (fileChange, error) {
	path := absPath(baseDir(call), filePath)
	external, err := askExternalDirs(ctx, call, target{path: path})
	if err != nil {
		return fileChange{}, err
	}
	// A secret file is asked about before it is read: what a failed edit
	// says (no match, two matches) would tell of its content.
	secret, err := askSecretEdit(ctx, env, call, path)
	if err != nil {
		return fileChange{}, err
	}
	unlock, err := locks.lock(ctx, path)
	if err != nil {
		return fileChange{}, err
	}
	defer unlock()
	old, existed, err := readExisting(ctx, call, path)
	if err != nil {
		return fileChange{}, err
	}
	updated, err := change(path, old, existed)
	if err != nil {
		return fileChange{}, err
	}
	diff := unifiedDiff(path, old, updated)
	req := permission.Request{
		Permission: "edit",
		Patterns:   []string{relPath(call, path)},
		Always:     []string{"*"},
		Metadata:   map[string]any{"filepath": path, "diff": diff},
	}
	protectEdit(call, []string{path}, &req)
	if !secret || req.Protected { // a secret file's change was approved above
		if err := call.Ask(ctx, req); err != nil {
			return fileChange{}, err
		}
	}
	if err := env.beforeChange(ctx, call, []string{path}); err != nil {
		return fileChange{}, err
	}
	if err := writeText(ctx, call, path, updated, landingCheck(call, external, req.Protected)); err != nil {
		return fileChange{}, err
	}
	publishEdited(ctx, env, call, path)
	note := env.afterChange(ctx, call, []string{path})
	if now, err := readText(ctx, call, path); err == nil && string(now) != updated {
		// A formatter changed the file: the diff shows what it holds now.
		updated = string(now)
		diff = unifiedDiff(path, old, updated)
	}
	typ := ChangeUpdate
	if !existed {
		typ = ChangeAdd
	}
	return fileChange{path: path, existed: existed, diff: diff, note: note,
		change: newChange(typ, path, "", diff, old, updated)}, nil
}

// readExisting returns the content of path (through the call's file
// system when it has one), or "" and false when there is no such file. A
// directory is an error.
func readExisting(ctx context.Context, call *Call, path string) (string, bool, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	if info.IsDir() {
		return "", false, fmt.Errorf("path is a directory, not a file: %s", path)
	}
	if err := checkRegular(path, info); err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	b, err := readText(ctx, call, path)
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	return string(b), true, nil
}

// writeFile replaces path's content atomically (keeping its mode, owner
// and links), creating missing parent directories.
func writeFile(path, content string, check func(string) error) error {
	return writeAtomic(path, []byte(content), 0o644, check)
}

// publishEdited tells the bus that a tool changed path.
func publishEdited(ctx context.Context, env Env, call *Call, path string) {
	if env.Bus == nil {
		return
	}
	env.Bus.Publish(ctx, bus.Event{
		Type:       bus.FileEdited,
		SessionID:  call.SessionID,
		Properties: map[string]any{"file": path},
	})
}
