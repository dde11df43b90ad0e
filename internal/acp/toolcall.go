package acp

import (
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

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

// patchKind is delete or move for a call that only deletes or only
// moves files, else edit.
func patchKind(st *client.ToolState) sdk.ToolKind {
	changes := st.Changes()
	if len(changes) == 0 {
		return sdk.ToolKindEdit
	}
	kind := ""
	for _, c := range changes {
		if kind != "" && c.Type != kind {
			return sdk.ToolKindEdit
		}
		kind = c.Type
	}
	switch kind {
	case client.ChangeDelete:
		return sdk.ToolKindDelete
	case client.ChangeMove:
		return sdk.ToolKindMove
	}
	return sdk.ToolKindEdit
}

// toolTitle is the state's title, else the tool's name with what its
// tool says the call works on.
func toolTitle(p client.Part) string {
	if st := p.State; st != nil && st.Title != "" {
		return st.Title
	}
	if p.Summary == "" {
		return p.Tool
	}
	return p.Tool + " " + p.Summary
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
func toolContent(p client.Part) []sdk.ToolCallContent {
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
	if diffs := toolDiffs(st); len(diffs) > 0 {
		return diffs
	}
	if _, plan := st.Metadata["todos"]; plan || st.Output == "" {
		return nil // a todo list goes to the editor as a plan
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(st.Output))}
}

// toolDiffs are the files a completed call changed, as path, old text
// and new text: the whole texts when the tool kept them, else the sides
// of the change's hunks.
func toolDiffs(st *client.ToolState) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	for _, c := range st.Changes() {
		oldText, newText := c.Before, c.After
		if !c.Whole {
			oldText, newText = hunkSides(c.Patch)
		}
		if c.Type == client.ChangeAdd {
			out = append(out, sdk.ToolDiffContent(c.Target(), newText))
			continue
		}
		out = append(out, sdk.ToolDiffContent(c.Target(), newText, oldText))
	}
	return out
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

// toolCallStart is the tool_call update that introduces a call.
func toolCallStart(p client.Part) sdk.SessionUpdate {
	return sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(p.CallID),
		Title:      toolTitle(p),
		Kind:       toolKind(p),
		Status:     toolStatus(p.State),
		Locations:  toolLocations(p),
		RawInput:   rawInput(p.State),
		RawOutput:  rawOutput(p.State),
		Content:    toolContent(p),
	}}
}

// toolCallUpdate is the tool_call_update of a call's new state.
func toolCallUpdate(p client.Part) sdk.SessionUpdate {
	title := toolTitle(p)
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
		Content:    toolContent(p),
	}}
}
