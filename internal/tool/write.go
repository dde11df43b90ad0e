package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/permission"
)

const bom = "\uFEFF"

type writeParams struct {
	Content  string `json:"content" jsonschema:"The content to write to the file"`
	FilePath string `json:"filePath" jsonschema:"The absolute path to the file to write (must be absolute, not relative)"`
}

func newWrite(env Env, locks *fileLocks) Tool {
	return Must(Def[writeParams]{
		ID:          "write",
		Description: describe("write"),
		Truncate:    env.Truncator,
		Run: func(ctx context.Context, call *Call, p writeParams) (*Result, error) {
			path := absPath(baseDir(call), p.FilePath)
			if err := askExternal(ctx, call, target{path: path}); err != nil {
				return nil, err
			}
			unlock, err := locks.lock(ctx, path)
			if err != nil {
				return nil, err
			}
			defer unlock()

			old, existed, err := readExisting(path)
			if err != nil {
				return nil, err
			}
			content := p.Content
			if strings.HasPrefix(old, bom) && !strings.HasPrefix(content, bom) {
				content = bom + content
			}
			diff := unifiedDiff(path, old, content)
			if err := call.Ask(ctx, permission.Request{
				Permission: "edit",
				Patterns:   []string{relPath(call, path)},
				Always:     []string{"*"},
				Metadata:   map[string]any{"filepath": path, "diff": diff},
			}); err != nil {
				return nil, err
			}
			if err := writeFile(path, content); err != nil {
				return nil, err
			}
			publishEdited(ctx, env, call, path)
			return &Result{
				Title:  relPath(call, path),
				Output: "Wrote file successfully.",
				Metadata: map[string]any{
					"filepath": path,
					"exists":   existed,
					"diff":     diff,
					"filediff": fileDiff(path, diff),
				},
			}, nil
		},
	})
}

// readExisting returns the content of path, or "" and false when there is
// no such file. A directory is an error.
func readExisting(path string) (string, bool, error) {
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
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	return string(b), true, nil
}

// writeFile writes content to path in place (keeping its mode and links),
// creating missing parent directories.
func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating the directory of %s: %w", path, err)
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
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
