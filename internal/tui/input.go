package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Editor history and large pastes.
const (
	// maxHistory is how many sent messages the history keeps.
	maxHistory = 500
	// pasteFoldLines is the number of lines from which a paste shows as
	// a placeholder in the editor; it is sent whole.
	pasteFoldLines = 10
)

// history is the messages sent from the editor, oldest first, and where
// Up and Down are in it. It is kept in a file, a JSON string a line, when
// one is given.
type history struct {
	path    string
	entries []string
	pos     int    // len(entries) when not browsing
	draft   string // what was typed before browsing began
}

// loadHistory reads the history file; a missing or damaged file gives an
// empty history.
func loadHistory(path string) history {
	h := history{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.entries = append(h.entries, s)
		}
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	h.pos = len(h.entries)
	return h
}

// add records a sent message and appends it to the file.
func (h *history) add(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if n := len(h.entries); n == 0 || h.entries[n-1] != text {
		h.entries = append(h.entries, text)
		if len(h.entries) > maxHistory {
			h.entries = h.entries[len(h.entries)-maxHistory:]
		}
		h.save(text)
	}
	h.pos, h.draft = len(h.entries), ""
}

func (h *history) save(text string) {
	if h.path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	b, _ := json.Marshal(text)
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

// move steps through the history (-1 older, +1 newer) from current, the
// editor's text; it returns the text to show and whether it moved.
func (h *history) move(step int, current string) (string, bool) {
	next := h.pos + step
	if next < 0 || next > len(h.entries) {
		return "", false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	h.pos = next
	if next == len(h.entries) {
		return h.draft, true
	}
	return h.entries[next], true
}

// historyKey handles Up and Down: on the editor's first (or last) line
// they browse the history instead of moving the caret.
func (m *Model) historyKey(step int) bool {
	if m.comp.open() {
		return false
	}
	if step < 0 && m.input.Line() != 0 {
		return false
	}
	if step > 0 && m.input.Line() != m.input.LineCount()-1 {
		return false
	}
	text, ok := m.hist.move(step, m.input.Value())
	if !ok {
		return false
	}
	m.input.SetValue(text)
	if step < 0 {
		m.input.MoveToBegin()
	}
	m.layout()
	return true
}

// pasted is a large paste the editor shows as a placeholder.
type pasted struct {
	label, text string
}

// paste inserts pasted text into the editor: a long paste as a
// placeholder that is replaced by the text when the message is sent.
func (m *Model) pasteIntoEditor(text string) tea.Cmd {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1; n >= pasteFoldLines {
		m.pasteSeq++
		label := fmt.Sprintf("[pasted %d lines #%d]", n, m.pasteSeq)
		m.pastes = append(m.pastes, pasted{label: label, text: text})
		m.input.InsertString(label)
		m.comp.update(m)
		m.layout()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(tea.PasteMsg{Content: text})
	m.comp.update(m)
	m.layout()
	return cmd
}

// expandPastes replaces the placeholders of large pastes in text by what
// was pasted, and forgets them.
func (m *Model) expandPastes(text string) string {
	for _, p := range m.pastes {
		text = strings.Replace(text, p.label, p.text, 1)
	}
	m.pastes = nil
	return text
}

// editorDoneMsg carries what was written in the external editor.
type editorDoneMsg struct {
	text string
	err  error
}

// openEditor composes the message in $VISUAL or $EDITOR (vi when neither
// is set), starting from the editor's text.
func (m *Model) openEditor() tea.Cmd {
	editor := m.getenv("VISUAL")
	if editor == "" {
		editor = m.getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	f, err := os.CreateTemp("", "codeloop-message-*.md")
	if err != nil {
		return m.failed("opening the editor", err)
	}
	path := f.Name()
	_, werr := f.WriteString(m.expandPastes(m.input.Value()))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return m.failed("opening the editor", werr)
	}
	fields := strings.Fields(editor)
	cmd := exec.Command(fields[0], append(fields[1:], path)...)
	return tea.Exec(settledCmd{cmd}, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorDoneMsg{err: fmt.Errorf("%s: %w", editor, err)}
		}
		b, err := os.ReadFile(path)
		return editorDoneMsg{text: strings.TrimRight(string(b), "\n"), err: err}
	})
}

func (m *Model) editorDone(msg editorDoneMsg) tea.Cmd {
	if msg.err != nil {
		return m.failed("the editor", msg.err)
	}
	m.input.SetValue(msg.text)
	m.comp.update(m)
	m.layout()
	return nil
}

// filesMsg carries the project's files for @ completion.
type filesMsg []string

// loadFiles indexes the project's files once, when @ is first typed.
func (m *Model) loadFiles() tea.Cmd {
	if m.filesLoading || m.opts.Dir == "" {
		return nil
	}
	m.filesLoading = true
	dir := m.opts.Dir
	return func() tea.Msg { return filesMsg(indexFiles(dir)) }
}

// settledCmd runs a program with the terminal as tea.ExecProcess does, and
// lasts at least printerPause (see holdTerminal).
type settledCmd struct{ *exec.Cmd }

func (c settledCmd) Run() error {
	start := time.Now()
	err := c.Cmd.Run()
	holdTerminal(start)
	return err
}

func (c settledCmd) SetStdin(r io.Reader) {
	if c.Stdin == nil {
		c.Stdin = r
	}
}

func (c settledCmd) SetStdout(w io.Writer) {
	if c.Stdout == nil {
		c.Stdout = w
	}
}

func (c settledCmd) SetStderr(w io.Writer) {
	if c.Stderr == nil {
		c.Stderr = w
	}
}
