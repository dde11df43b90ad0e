package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/codeloop/codeloop/internal/client"
)

// styled returns a function applying st to a line.
func styled(st interface{ Render(...string) string }) func(string) string {
	return func(s string) string { return st.Render(s) }
}

// userEntry is a message of the user's: its text behind a bar, and the
// files it attaches.
type userEntry struct {
	id    string
	texts []string
	files []string
	cache renderCache
}

func (e *userEntry) key() string { return e.id + "/" }

func (e *userEntry) render(width int, th *theme, tag int) []string {
	if ls, ok := e.cache.get(width, tag); ok {
		return ls
	}
	var out []string
	bar := th.accent.Render("┃") + " "
	text := strings.Join(e.texts, "\n\n")
	if text != "" {
		for _, l := range (plainText{}).render(text, width-2, styled(th.user)) {
			out = append(out, bar+l)
		}
	}
	for _, f := range e.files {
		out = append(out, bar+th.faint.Render(ansi.Truncate("attached "+f, width-2, "…")))
	}
	return e.cache.put(width, tag, out)
}

// textEntry is text the model wrote. While it streams, only the text
// after its last stable boundary is rendered again for each delta.
type textEntry struct {
	k         string
	text      string
	streaming bool
	stream    streamText
	cache     renderCache
}

func (e *textEntry) key() string { return e.k }

func (e *textEntry) set(text string, streaming bool) {
	e.text, e.streaming = text, streaming
	e.cache.reset()
}

func (e *textEntry) appendText(delta string) {
	e.text += delta
	e.cache.reset()
}

func (e *textEntry) render(width int, th *theme, tag int) []string {
	if strings.TrimSpace(e.text) == "" {
		return nil
	}
	if ls, ok := e.cache.get(width, tag); ok {
		return ls
	}
	return e.cache.put(width, tag, e.stream.lines(th.md, strings.TrimRight(e.text, "\n"), width, styled(th.text), tag))
}

// reasoningEntry is the model's reasoning, folded to one line.
type reasoningEntry struct {
	k         string
	text      string
	streaming bool
	cache     renderCache
}

func (e *reasoningEntry) key() string { return e.k }

func (e *reasoningEntry) render(width int, th *theme, tag int) []string {
	if ls, ok := e.cache.get(width, tag); ok {
		return ls
	}
	text := strings.TrimSpace(e.text)
	if text == "" {
		return e.cache.put(width, tag, nil)
	}
	line := "Thought"
	if e.streaming {
		last := text[strings.LastIndexByte(text, '\n')+1:]
		line = "Thinking: " + last
	} else {
		line += fmt.Sprintf(" (%d lines)", strings.Count(text, "\n")+1)
	}
	return e.cache.put(width, tag, []string{th.reasoning.Render(ansi.Truncate(line, width, "…"))})
}

// toolEntry is one tool call: one line with its status, or, expanded, its
// input and output too.
type toolEntry struct {
	k        string
	part     client.Part
	expanded bool
	selected bool
	cache    renderCache
}

func (e *toolEntry) key() string { return e.k }

func (e *toolEntry) render(width int, th *theme, tag int) []string {
	if ls, ok := e.cache.get(width, tag); ok {
		return ls
	}
	st := e.part.State
	if st == nil {
		st = &client.ToolState{Status: client.ToolPending}
	}
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
	if s := toolSummary(e.part.Tool, st); s != "" {
		head += " " + th.faint.Render(firstLine(s))
	}
	out := []string{ansi.Truncate(head, width, "…")}
	if st.Status == client.ToolError && st.Error != "" && !e.expanded {
		out = append(out, "   "+th.bad.Render(ansi.Truncate(firstLine(st.Error), width-3, "…")))
	}
	if e.expanded {
		out = append(out, e.details(width, th, st)...)
	}
	return e.cache.put(width, tag, out)
}

// details are the lines of an expanded call: its input and its output or
// error.
func (e *toolEntry) details(width int, th *theme, st *client.ToolState) []string {
	var out []string
	add := func(title, body string, style func(string) string) {
		out = append(out, "   "+th.faint.Render(title))
		for _, l := range (plainText{}).render(body, width-5, style) {
			out = append(out, "     "+l)
		}
	}
	if len(st.Input) > 0 && string(st.Input) != "{}" {
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
		if o, ok := st.Metadata["output"].(string); ok && o != "" {
			add("output so far", o, styled(th.code))
		}
	}
	return out
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(no output)"
	}
	return s
}

// toolSummary is what a call's line says about it: the command, the file,
// the pattern.
func toolSummary(tool string, st *client.ToolState) string {
	var in map[string]any
	_ = json.Unmarshal(st.Input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch tool {
	case "bash":
		if c := str("command"); c != "" {
			return "$ " + c
		}
	case "read", "edit", "write":
		if p := str("filePath"); p != "" {
			return filepath.Clean(p)
		}
	case "glob", "grep":
		if p := str("pattern"); p != "" {
			return p
		}
	case "task":
		if d := str("description"); d != "" {
			return d
		}
	case "webfetch":
		if u := str("url"); u != "" {
			return u
		}
	}
	if st.Title != "" {
		return st.Title
	}
	if len(in) > 0 {
		b, _ := json.Marshal(in)
		return string(b)
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// noteEntry is a line or a few about the session: an error, a retry, an
// interruption, a compaction.
type noteEntry struct {
	k     string
	text  string
	kind  noteKind
	cache renderCache
}

type noteKind int

const (
	noteInfo noteKind = iota
	noteError
	noteWarn
)

func (e *noteEntry) key() string { return e.k }

func (e *noteEntry) render(width int, th *theme, tag int) []string {
	if ls, ok := e.cache.get(width, tag); ok {
		return ls
	}
	st := th.faint
	switch e.kind {
	case noteError:
		st = th.bad
	case noteWarn:
		st = th.warn
	}
	return e.cache.put(width, tag, (plainText{}).render(e.text, width, styled(st)))
}
