package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
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

func (e *userEntry) drop() { e.cache.reset() }

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

func (e *textEntry) drop() { e.cache.reset() }

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
	ls := e.stream.lines(th.md, strings.TrimRight(e.text, "\n"), width, styled(th.text), tag)
	if !e.streaming {
		// Finished: the cache keeps the lines; the stream's state goes.
		e.stream = streamText{}
	}
	return e.cache.put(width, tag, ls)
}

// reasoningEntry is the model's reasoning, folded to one line.
type reasoningEntry struct {
	k         string
	text      string
	streaming bool
	full      bool // shown whole rather than folded
	cache     renderCache
}

func (e *reasoningEntry) key() string { return e.k }

func (e *reasoningEntry) drop() { e.cache.reset() }

func (e *reasoningEntry) render(width int, th *theme, tag int) []string {
	if ls, ok := e.cache.get(width, tag); ok {
		return ls
	}
	text := strings.TrimSpace(e.text)
	if text == "" {
		return e.cache.put(width, tag, nil)
	}
	if e.full {
		out := []string{th.reasoning.Render("Thinking:")}
		for _, l := range (plainText{}).render(text, width-2, styled(th.reasoning)) {
			out = append(out, "  "+l)
		}
		return e.cache.put(width, tag, out)
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

func (e *noteEntry) drop() { e.cache.reset() }

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
