package tui

import (
	"encoding/json"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/task"
	"github.com/codeloop/codeloop/internal/tool"
)

// describedIn fills in what the engine records on a call's part from its
// tool (kind, touches and summary, paths relative to dir), as the real
// built-in tools give them; a tool that is not built in is left as an
// MCP tool's call would be, summarised by its arguments.
func describedIn(p client.Part, dir string) client.Part {
	var t tool.Tool
	if p.Tool == task.ID {
		t = task.New(task.Options{})
	} else if bt, ok := tool.NewRegistry(tool.Builtins(tool.Env{})...).Lookup(p.Tool); ok {
		t = bt
	}
	if t == nil || p.State == nil {
		return p
	}
	in := json.RawMessage(p.State.Input)
	p.Kind = string(tool.Describe(t).Kind)
	p.Summary = tool.Summary(t, in, dir)
	for _, f := range tool.Touches(t, in, dir) {
		p.Touches = append(p.Touches, client.ToolTouch{Path: f.Path, Line: f.Line, Write: f.Write})
	}
	return p
}
