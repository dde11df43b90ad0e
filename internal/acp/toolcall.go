package acp

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// toolInput holds the arguments of the built-in tools the editor is told
// about (OpenCode's names).
type toolInput struct {
	FilePath    string `json:"filePath"`
	Path        string `json:"path"`
	Offset      int    `json:"offset"`
	OldString   string `json:"oldString"`
	NewString   string `json:"newString"`
	Content     string `json:"content"`
	Command     string `json:"command"`
	Description string `json:"description"`
	Pattern     string `json:"pattern"`
	Query       string `json:"query"`
	URL         string `json:"url"`
	Prompt      string `json:"prompt"`
	Name        string `json:"name"`
}

func parseInput(raw json.RawMessage) toolInput {
	var in toolInput
	_ = json.Unmarshal(raw, &in)
	return in
}

// toolKind says how the editor shows a tool's calls: as the tool
// describes itself, an edit that only deletes or only moves files shown as
// such once its result says so.
func toolKind(p client.Part) sdk.ToolKind {
	switch k := sdk.ToolKind(p.Kind); k {
	case sdk.ToolKindEdit:
		return patchKind(p.State)
	case sdk.ToolKindRead, sdk.ToolKindDelete, sdk.ToolKindMove, sdk.ToolKindSearch,
		sdk.ToolKindExecute, sdk.ToolKindThink, sdk.ToolKindFetch:
		return k
	}
	return sdk.ToolKindOther
}

// patchKind is delete or move for a patch that only deletes or only moves
// files, else edit.
func patchKind(st *client.ToolState) sdk.ToolKind {
	files := patchFiles(st)
	if len(files) == 0 {
		return sdk.ToolKindEdit
	}
	kind := ""
	for _, f := range files {
		if kind != "" && f.Type != kind {
			return sdk.ToolKindEdit
		}
		kind = f.Type
	}
	switch kind {
	case "delete":
		return sdk.ToolKindDelete
	case "move":
		return sdk.ToolKindMove
	}
	return sdk.ToolKindEdit
}

// patchFile is one file of apply_patch's metadata.
type patchFile struct {
	File     string `json:"file"`
	MovePath string `json:"movePath"`
	Patch    string `json:"patch"`
	Type     string `json:"type"`
}

func patchFiles(st *client.ToolState) []patchFile {
	if st == nil || st.Metadata == nil {
		return nil
	}
	raw, ok := st.Metadata["files"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var files []patchFile
	_ = json.Unmarshal(b, &files)
	return files
}

// toolTitle is the state's title, else the tool's name with its main
// argument.
func toolTitle(p client.Part, dir string) string {
	st := p.State
	if st != nil && st.Title != "" {
		return st.Title
	}
	var in toolInput
	if st != nil {
		in = parseInput(st.Input)
	}
	arg := ""
	switch {
	case in.FilePath != "":
		arg = relative(dir, in.FilePath)
	case in.Description != "":
		arg = in.Description
	case in.Command != "":
		arg = in.Command
	case in.Pattern != "":
		arg = in.Pattern
	case in.Query != "":
		arg = in.Query
	case in.URL != "":
		arg = in.URL
	case in.Path != "":
		arg = relative(dir, in.Path)
	}
	if arg == "" {
		return p.Tool
	}
	return p.Tool + " " + arg
}

// relative shows path relative to dir when it lies below it.
func relative(dir, path string) string {
	if dir == "" || !filepath.IsAbs(path) {
		return path
	}
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// absolute resolves path against dir.
func absolute(dir, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// toolLocations are the files a call reads or changes, as its tool
// describes them, so the editor can follow along.
func toolLocations(p client.Part) []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	for _, t := range p.Touches {
		loc := sdk.ToolCallLocation{Path: t.Path}
		if t.Line > 0 {
			line := t.Line
			loc.Line = &line
		}
		out = append(out, loc)
	}
	return out
}

// toolStatus maps a call's status.
func toolStatus(st *client.ToolState) sdk.ToolCallStatus {
	if st == nil {
		return sdk.ToolCallStatusPending
	}
	switch st.Status {
	case client.ToolRunning:
		return sdk.ToolCallStatusInProgress
	case client.ToolCompleted:
		return sdk.ToolCallStatusCompleted
	case client.ToolError:
		return sdk.ToolCallStatusFailed
	}
	return sdk.ToolCallStatusPending
}

// rawOutput is what a finished call returned.
func rawOutput(st *client.ToolState) any {
	if st == nil {
		return nil
	}
	switch st.Status {
	case client.ToolCompleted:
		out := map[string]any{"output": st.Output}
		if len(st.Metadata) > 0 {
			out["metadata"] = st.Metadata
		}
		return out
	case client.ToolError:
		return map[string]any{"error": st.Error}
	}
	return nil
}

// rawInput is the call's arguments as JSON, or nil before they are known.
func rawInput(st *client.ToolState) any {
	if st == nil || len(st.Input) == 0 || string(st.Input) == "{}" {
		return nil
	}
	return st.Input
}

// toolContent is what the editor shows inside a call: the diffs of a file
// change, the output of anything else, the error of a failed call.
func toolContent(p client.Part, dir string) []sdk.ToolCallContent {
	st := p.State
	if st == nil {
		return nil
	}
	switch st.Status {
	case client.ToolError:
		return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(st.Error))}
	case client.ToolCompleted:
	default:
		return nil
	}
	if diffs := toolDiffs(p, dir); len(diffs) > 0 {
		return diffs
	}
	if p.Tool == "todowrite" || st.Output == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(st.Output))}
}

// toolDiffs are the file changes of a completed edit, write or
// apply_patch, as path, old text and new text.
func toolDiffs(p client.Part, dir string) []sdk.ToolCallContent {
	st := p.State
	in := parseInput(st.Input)
	path := absolute(dir, in.FilePath)
	switch p.Tool {
	case "edit":
		if path == "" {
			return nil
		}
		return []sdk.ToolCallContent{sdk.ToolDiffContent(path, in.NewString, in.OldString)}
	case "write":
		if path == "" {
			return nil
		}
		diff, _ := st.Metadata["diff"].(string)
		existed, _ := st.Metadata["exists"].(bool)
		if !existed {
			return []sdk.ToolCallContent{sdk.ToolDiffContent(path, in.Content)}
		}
		if old, ok := reverseDiff(in.Content, diff); ok {
			return []sdk.ToolCallContent{sdk.ToolDiffContent(path, in.Content, old)}
		}
		oldHunks, newHunks := hunkSides(diff)
		return []sdk.ToolCallContent{sdk.ToolDiffContent(path, newHunks, oldHunks)}
	case "apply_patch":
		var out []sdk.ToolCallContent
		for _, f := range patchFiles(st) {
			target := absolute(dir, f.File)
			if f.MovePath != "" {
				target = absolute(dir, f.MovePath)
			}
			oldText, newText := hunkSides(f.Patch)
			if f.Type == "add" {
				out = append(out, sdk.ToolDiffContent(target, newText))
				continue
			}
			out = append(out, sdk.ToolDiffContent(target, newText, oldText))
		}
		return out
	}
	return nil
}

// hunkSides returns the old and new sides of a unified diff's hunks: what
// the editor can show of a change whose whole texts are not at hand.
func hunkSides(diff string) (oldText, newText string) {
	var o, n strings.Builder
	for _, line := range strings.SplitAfter(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "---"), strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "@@"), strings.HasPrefix(line, `\`):
		case strings.HasPrefix(line, "-"):
			o.WriteString(line[1:])
		case strings.HasPrefix(line, "+"):
			n.WriteString(line[1:])
		case strings.HasPrefix(line, " "):
			o.WriteString(line[1:])
			n.WriteString(line[1:])
		}
	}
	return o.String(), n.String()
}

// reverseDiff rebuilds the text a unified diff was made from, given the
// text it produced. It reports false when the diff does not fit newText.
func reverseDiff(newText, diff string) (string, bool) {
	if strings.TrimSpace(diff) == "" {
		return newText, true
	}
	newLines := strings.SplitAfter(newText, "\n")
	if len(newLines) > 0 && newLines[len(newLines)-1] == "" {
		newLines = newLines[:len(newLines)-1]
	}
	var out strings.Builder
	next := 0 // the next line of newLines not yet copied
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "@@") {
			continue
		}
		start, ok := hunkNewStart(line)
		if !ok || start < next {
			return "", false
		}
		for ; next < start && next < len(newLines); next++ {
			out.WriteString(newLines[next])
		}
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@") {
			i++
			body := lines[i]
			switch {
			case strings.HasPrefix(body, `\`):
				// "\ No newline at end of file" ends the line before it.
				s := out.String()
				if strings.HasSuffix(s, "\n") && i > 0 && strings.HasPrefix(lines[i-1], "-") {
					out.Reset()
					out.WriteString(strings.TrimSuffix(s, "\n"))
				}
			case strings.HasPrefix(body, "-"):
				out.WriteString(body[1:])
			case strings.HasPrefix(body, "+"):
				next++
			case strings.HasPrefix(body, " "):
				if next >= len(newLines) {
					return "", false
				}
				out.WriteString(newLines[next])
				next++
			}
		}
	}
	for ; next < len(newLines); next++ {
		out.WriteString(newLines[next])
	}
	return out.String(), true
}

// hunkNewStart returns the zero-based first line of a hunk's new side from
// its header, "@@ -a,b +c,d @@".
func hunkNewStart(header string) (int, bool) {
	_, rest, ok := strings.Cut(header, "+")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, " ")
	start, count, hasCount := strings.Cut(num, ",")
	n, err := strconv.Atoi(start)
	if err != nil {
		return 0, false
	}
	if hasCount && count == "0" {
		return n, true // an empty new side starts after line n
	}
	if n == 0 {
		return 0, true
	}
	return n - 1, true
}

// toolCallStart is the tool_call update that introduces a call.
func toolCallStart(p client.Part, dir string) sdk.SessionUpdate {
	return sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(p.CallID),
		Title:      toolTitle(p, dir),
		Kind:       toolKind(p),
		Status:     toolStatus(p.State),
		Locations:  toolLocations(p),
		RawInput:   rawInput(p.State),
		RawOutput:  rawOutput(p.State),
		Content:    toolContent(p, dir),
	}}
}

// toolCallUpdate is the tool_call_update of a call's new state.
func toolCallUpdate(p client.Part, dir string) sdk.SessionUpdate {
	title := toolTitle(p, dir)
	kind := toolKind(p)
	status := toolStatus(p.State)
	return sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(p.CallID),
		Title:      &title,
		Kind:       &kind,
		Status:     &status,
		Locations:  toolLocations(p),
		RawInput:   rawInput(p.State),
		RawOutput:  rawOutput(p.State),
		Content:    toolContent(p, dir),
	}}
}
