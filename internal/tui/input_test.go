package tui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func typeInto(m *Model, s string) {
	for _, r := range s {
		m.Update(keyPress(string(r)))
	}
}

// TestHistory: Up and Down browse the messages sent, the draft comes
// back at the end, and the history outlives the view in its file.
func TestHistory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state", "history.jsonl")
	m := New(context.Background(), Options{HistoryFile: file, Now: func() time.Time { return clock }})
	send(m, resize(80, 24))
	for _, msg := range []string{"first", "second\nline two"} {
		m.Update(tea.PasteMsg{Content: msg})
		m.Update(keyPress("enter"))
	}
	typeInto(m, "draft")
	steps := []struct {
		key, want string
	}{
		{"up", "second\nline two"}, {"up", "first"}, {"up", "first"}, {"down", "second\nline two"}, {"down", "draft"},
	}
	for i, st := range steps {
		if st.key == "down" && strings.Contains(m.input.Value(), "\n") {
			// Down moves the caret to the last line first.
			m.Update(keyPress("down"))
		}
		m.Update(keyPress(st.key))
		if got := m.input.Value(); got != st.want {
			t.Fatalf("step %d (%s): editor %q, want %q", i, st.key, got, st.want)
		}
	}
	again := New(context.Background(), Options{HistoryFile: file})
	if !slices.Equal(again.hist.entries, []string{"first", "second\nline two"}) {
		t.Errorf("history read back: %q", again.hist.entries)
	}
}

// TestLargePaste: a paste of many lines shows as a placeholder and is
// sent whole.
func TestLargePaste(t *testing.T) {
	m := testModel(t, 80, 24)
	var b strings.Builder
	for i := range 12 {
		b.WriteString("log line " + string(rune('a'+i)) + "\n")
	}
	typeInto(m, "explain ")
	m.Update(tea.PasteMsg{Content: b.String()})
	if s := screen(m); !strings.Contains(s, "> explain [pasted 12 lines #1]") {
		t.Fatalf("the editor:\n%s", s)
	}
	m.Update(keyPress("enter"))
	if got := m.hist.entries[len(m.hist.entries)-1]; got != "explain "+b.String() {
		t.Errorf("sent %q", got)
	}
	if len(m.pastes) != 0 {
		t.Errorf("the paste was kept after sending")
	}
}

// TestIndexFiles: the files listed for @ leave out what .gitignore
// files ignore, at the root and below, and .git.
func TestIndexFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		".gitignore": "build/\n*.log\n", "greet.go": "", "greet_test.go": "", "debug.log": "", "build/out.bin": "",
		"docs/.gitignore": "draft.md\n", "docs/guide.md": "", "docs/draft.md": "", ".git/config": "", "img/logo.png": "",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := indexFiles(dir)
	slices.Sort(got)
	want := []string{".gitignore", "docs/", "docs/.gitignore", "docs/guide.md", "greet.go", "greet_test.go", "img/", "img/logo.png"}
	if !slices.Equal(got, want) {
		t.Errorf("indexFiles = %q, want %q", got, want)
	}
	if top := fuzzyFilter(got, "grt", 3); len(top) == 0 || top[0] != "greet.go" {
		t.Errorf("fuzzy grt: %q", top)
	}
}

// TestFileCompletion: @ lists the project's files matching what follows
// it and Tab puts the path in.
func TestFileCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"greet.go", "main.go", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := New(context.Background(), Options{Dir: dir, Now: func() time.Time { return clock }})
	send(m, resize(80, 24))
	typeInto(m, "look at ")
	_, cmd := m.Update(keyPress("@"))
	if cmd == nil {
		t.Fatal("typing @ did not index the files")
	}
	m.Update(findMsg[filesMsg](cmd))
	typeInto(m, "g")
	if s := screen(m); !strings.Contains(s, "@greet.go") || strings.Contains(s, "@README.md") {
		t.Fatalf("the list:\n%s", s)
	}
	m.Update(keyPress("tab"))
	if got := m.input.Value(); got != "look at @greet.go " {
		t.Errorf("editor %q", got)
	}
}

// findMsg runs cmd (and the commands of a batch) until one returns a T.
func findMsg[T any](cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if v, ok := msg.(T); ok {
		return v
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if v := findMsg[T](c); v != nil {
				return v
			}
		}
	}
	return nil
}
