package tool

import (
	"context"
	"fmt"
	"strings"
)

type editParams struct {
	FilePath   string `json:"filePath" jsonschema:"Absolute path of the file"`
	OldString  string `json:"oldString" jsonschema:"Text to replace"`
	NewString  string `json:"newString" jsonschema:"Replacement, different from oldString"`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"Replace every match"`
}

func newEdit(env Env, locks *fileLocks) Tool {
	return Must(Def[editParams]{
		Traits:      Traits{Kind: KindEdit, Contained: true},
		Touches:     func(p editParams, dir string) []Touch { return touch(dir, p.FilePath, true) },
		Summary:     func(p editParams, dir string) string { return shown(dir, p.FilePath) },
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
	var strategy string
	ch, err := changeFile(ctx, env, locks, call, p.FilePath, func(path, old string, existed bool) (string, error) {
		if p.OldString == "" {
			if existed {
				return "", &EditError{fmt.Sprintf("Cannot create %s: the file already exists. Give oldString to change part of it, or use the write tool to replace it whole.", path)}
			}
			return p.NewString, nil
		}
		if !existed {
			return "", &EditError{fmt.Sprintf("File %s not found. To create it, call edit with an empty oldString or use the write tool.", path)}
		}
		updated, s, err := editContent(old, p.OldString, p.NewString, p.ReplaceAll)
		strategy = s
		return updated, err
	})
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"filepath": ch.path, "diff": ch.diff, "filediff": fileDiff(ch.path, ch.diff),
		ChangesKey: []Change{ch.change}}
	if strategy != "" {
		meta["strategy"] = strategy
	}
	return &Result{Title: relPath(call, ch.path), Output: "Edit applied successfully." + ch.note, Metadata: meta}, nil
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
