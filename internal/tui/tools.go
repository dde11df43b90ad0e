package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/codeloop/codeloop/internal/client"
)

// How much of a call a folded entry shows.
const (
	foldedDiffLines = 16 // of a file change's diff
	foldedBashLines = 4  // of a command's output, its last lines
)

// toolEntry is one tool call: one line with its status and what it works
// on, followed by what matters most of it (a file change's diff, the last
// lines of a command's output, a todo list, a sub-agent's progress);
// expanded, its whole input and output.
type toolEntry struct {
	k        string
	part     client.Part
	expanded bool
	selected bool
	// child is the progress of the sub-agent session a task call runs.
	child *childProgress
	cache renderCache
}

// childProgress is what the view saw a sub-agent's session do.
type childProgress struct {
	sessionID string
	calls     map[string]string // part id → status
	current   string            // the latest call, as its line says it
}

func (c *childProgress) counts() (done, all int) {
	for _, st := range c.calls {
		if st == client.ToolCompleted || st == client.ToolError {
			done++
		}
	}
	return done, len(c.calls)
}

func (e *toolEntry) key() string { return e.k }

func (e *toolEntry) drop() { e.cache.reset() }

func (e *toolEntry) state() *client.ToolState {
	if e.part.State == nil {
		return &client.ToolState{Status: client.ToolPending}
	}
	return e.part.State
}

// childSession is the id of the session a call runs a sub-agent in
// (a task's), once known.
func (e *toolEntry) childSession() string {
	id, _ := e.state().Metadata["sessionId"].(string)
	return id
}

func (e *toolEntry) render(width int, th *theme, tag int) []string {
	if ls, ok := e.cache.get(width, tag); ok {
		return ls
	}
	st := e.state()
	var icon string
	switch st.Status {
	case client.ToolCompleted:
		icon = th.ok.Render("✓")
	case client.ToolError:
		icon = th.bad.Render("✗")
	case client.ToolRunning:
		icon = th.warn.Render("•")
	default:
		icon = th.faint.Render("○")
	}
	mark := " "
	if e.selected {
		mark = th.accent.Render("▸")
	}
	head := mark + icon + " " + th.toolName.Render(e.part.Tool)
	if s := toolSummary(e.part, st); s != "" {
		head += " " + th.faint.Render(firstLine(s))
	}
	diff := parseDiff(toolDiff(st))
	if add, del := diffStat(diff); add+del > 0 {
		head += " " + th.ok.Render(fmt.Sprintf("+%d", add)) + " " + th.bad.Render(fmt.Sprintf("-%d", del))
	}
	out := []string{truncate(head, width)}
	indent := func(ls []string) {
		for _, l := range ls {
			out = append(out, "   "+l)
		}
	}
	if st.Status == client.ToolError && st.Error != "" && !e.expanded {
		out = append(out, "   "+th.bad.Render(truncate(firstLine(st.Error), width-3)))
	}
	inner := max(width-3, 1)
	switch {
	case len(diff) > 0:
		ls := renderDiff(diff, inner, width, th)
		if !e.expanded && len(ls) > foldedDiffLines {
			more := len(ls) - foldedDiffLines
			ls = append(ls[:foldedDiffLines:foldedDiffLines], th.faint.Render(fmt.Sprintf("… %d more lines · Ctrl+O shows all", more)))
		}
		indent(ls)
	case len(todosOf(st)) > 0:
		indent(todoLines(todosOf(st), inner, th))
	case e.child != nil && st.Status == client.ToolRunning:
		done, all := e.child.counts()
		line := fmt.Sprintf("%d of %d tool calls done", done, all)
		if e.child.current != "" {
			line += " · " + e.child.current
		}
		indent([]string{th.faint.Render(truncate(line, inner))})
	case e.part.Kind == client.KindExecute && !e.expanded:
		output := bashOutput(st)
		if ls := lastLines(output, foldedBashLines); len(ls) > 0 {
			if n := strings.Count(strings.TrimRight(output, "\n "), "\n") + 1; n > len(ls) {
				out = append(out, "   "+th.faint.Render(truncate(fmt.Sprintf("… %d more lines above · Ctrl+O shows all", n-len(ls)), inner)))
			}
			for _, l := range ls {
				out = append(out, "   "+th.code.Render(truncate(expandTabs(l), inner)))
			}
		}
	}
	if e.childSession() != "" && e.selected {
		out = append(out, "   "+th.faint.Render(truncate("Ctrl+O opens the sub-agent's session", inner)))
	}
	if e.expanded {
		out = append(out, e.details(width, th, st, len(diff) > 0)...)
	}
	return e.cache.put(width, tag, out)
}

// details are the lines of an expanded call: its input (unless a diff
// shows it) and its output or error.
func (e *toolEntry) details(width int, th *theme, st *client.ToolState, diffShown bool) []string {
	var out []string
	pt := plainText{tab: th.tabs.width(e.firstTouch())}
	add := func(title, body string, style func(string) string) {
		out = append(out, "   "+th.faint.Render(title))
		for _, l := range pt.render(body, width-5, style) {
			out = append(out, "     "+l)
		}
	}
	if len(st.Input) > 0 && string(st.Input) != "{}" && !diffShown {
		var buf bytes.Buffer
		in := string(st.Input)
		if json.Indent(&buf, st.Input, "", "  ") == nil {
			in = buf.String()
		}
		add("input", in, styled(th.code))
	}
	switch st.Status {
	case client.ToolError:
		add("error", st.Error, styled(th.bad))
	case client.ToolCompleted:
		add("output", orNone(st.Output), styled(th.code))
	case client.ToolRunning:
		if o := bashOutput(st); o != "" {
			add("output so far", o, styled(th.code))
		}
	}
	return out
}

// firstTouch is the first file the call reads or changes, "" for none.
func (e *toolEntry) firstTouch() string {
	if len(e.part.Touches) == 0 {
		return ""
	}
	return e.part.Touches[0].Path
}

// toolDiff is the diff of the files a call changed, "" for a call that
// changed none. A call recorded before tools listed their changes has
// its diff in OpenCode's metadata key.
func toolDiff(st *client.ToolState) string {
	if changes := st.Changes(); len(changes) > 0 {
		patches := make([]string, len(changes))
		for i, c := range changes {
			patches[i] = c.Patch
		}
		return strings.Join(patches, "\n")
	}
	d, _ := st.Metadata["diff"].(string)
	return d
}

// bashOutput is a command's output: all of it once done, what came so
// far while it runs.
func bashOutput(st *client.ToolState) string {
	if st.Status == client.ToolCompleted {
		return st.Output
	}
	o, _ := st.Metadata["output"].(string)
	return o
}

// lastLines returns the last n non-empty-ended lines of s.
func lastLines(s string, n int) []string {
	s = strings.TrimRight(s, "\n ")
	if s == "" {
		return nil
	}
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return ls
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(no output)"
	}
	return s
}

// toolSummary is what a call's line says about it: what the tool says
// the call works on (a command after a prompt sign), else the call's
// title, else its arguments.
func toolSummary(p client.Part, st *client.ToolState) string {
	switch {
	case p.Summary != "" && p.Kind == client.KindExecute:
		return "$ " + p.Summary
	case p.Summary != "":
		return p.Summary
	case st.Title != "":
		return st.Title
	}
	var buf bytes.Buffer
	if json.Compact(&buf, st.Input) == nil && buf.String() != "{}" {
		return buf.String()
	}
	return ""
}

// todosOf reads the todo list a call wrote (OpenCode's todos metadata).
func todosOf(st *client.ToolState) []client.Todo {
	raw, ok := st.Metadata["todos"]
	if !ok {
		return nil
	}
	var todos []client.Todo
	if b, err := json.Marshal(raw); err == nil {
		_ = json.Unmarshal(b, &todos)
	}
	return todos
}

// todoLines draws a todo list: a box per item, ticked when done.
func todoLines(todos []client.Todo, width int, th *theme) []string {
	var out []string
	for _, t := range todos {
		var line string
		switch t.Status {
		case "completed":
			line = th.faint.Render(truncate("[✓] "+t.Content, width))
		case "in_progress":
			line = th.warn.Render(truncate("[•] "+t.Content, width))
		case "cancelled":
			line = th.faint.Render(truncate("[-] "+t.Content, width))
		default:
			line = truncate("[ ] "+t.Content, width)
		}
		out = append(out, line)
	}
	return out
}

// todoBar is the line above the editor while a todo list is under way:
// the item in progress and how many are done.
func todoBar(todos []client.Todo, width int, th *theme) string {
	done, current := 0, ""
	for _, t := range todos {
		switch t.Status {
		case "completed", "cancelled":
			done++
		case "in_progress":
			if current == "" {
				current = t.Content
			}
		}
	}
	if len(todos) == 0 || done == len(todos) {
		return ""
	}
	line := fmt.Sprintf("Todo %d/%d", done, len(todos))
	if current != "" {
		line += ": " + current
	}
	return th.warn.Render(ansi.Truncate(line, width, "…"))
}
