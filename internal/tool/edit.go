package tool

import (
	"context"
	"fmt"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
)

type editParams struct {
	FilePath   string `json:"filePath" jsonschema:"The absolute path to the file to modify"`
	OldString  string `json:"oldString" jsonschema:"The text to replace"`
	NewString  string `json:"newString" jsonschema:"The text to replace it with (must be different from oldString)"`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"Replace all occurrences of oldString (default false)"`
}

func newEdit(env Env, locks *fileLocks) Tool {
	return Must(Def[editParams]{
		ID:          "edit",
		Description: describe("edit"),
		Truncate:    env.Truncator,
		Run: func(ctx context.Context, call *Call, p editParams) (*Result, error) {
			return runEdit(ctx, env, locks, call, p)
		},
	})
}

func runEdit(ctx context.Context, env Env, locks *fileLocks, call *Call, p editParams) (*Result, error) {
	if p.OldString == p.NewString {
		return nil, &EditError{"No changes to apply: oldString and newString are identical."}
	}
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
	var updated, strategy string
	if p.OldString == "" {
		if existed {
			return nil, &EditError{fmt.Sprintf("Cannot create %s: the file already exists. Give oldString to change part of it, or use the write tool to replace it whole.", path)}
		}
		updated = p.NewString
	} else {
		if !existed {
			return nil, &EditError{fmt.Sprintf("File %s not found. To create it, call edit with an empty oldString or use the write tool.", path)}
		}
		updated, strategy, err = editContent(old, p.OldString, p.NewString, p.ReplaceAll)
		if err != nil {
			return nil, err
		}
	}
	diff := unifiedDiff(path, old, updated)
	if err := call.Ask(ctx, permission.Request{
		Permission: "edit",
		Patterns:   []string{relPath(call, path)},
		Always:     []string{"*"},
		Metadata:   map[string]any{"filepath": path, "diff": diff},
	}); err != nil {
		return nil, err
	}
	if err := writeFile(path, updated); err != nil {
		return nil, err
	}
	publishEdited(ctx, env, call, path)
	meta := map[string]any{"filepath": path, "diff": diff, "filediff": fileDiff(path, diff)}
	if strategy != "" {
		meta["strategy"] = strategy
	}
	return &Result{Title: relPath(call, path), Output: "Edit applied successfully.", Metadata: meta}, nil
}

// editContent applies one edit to a file's content, keeping the file's
// byte order mark and line endings whatever the model wrote.
func editContent(content, oldString, newString string, replaceAll bool) (string, string, error) {
	hadBOM := strings.HasPrefix(content, bom)
	content = strings.TrimPrefix(content, bom)
	oldString = strings.TrimPrefix(oldString, bom)
	newString = strings.TrimPrefix(newString, bom)
	if strings.Contains(content, "\r\n") {
		oldString = toCRLF(oldString)
		newString = toCRLF(newString)
	} else {
		oldString = strings.ReplaceAll(oldString, "\r\n", "\n")
		newString = strings.ReplaceAll(newString, "\r\n", "\n")
	}
	out, strategy, err := replace(content, oldString, newString, replaceAll)
	if err != nil {
		return "", strategy, err
	}
	if hadBOM {
		out = bom + out
	}
	return out, strategy, nil
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
