package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// TestCodeBlockTabs: a tab-indented line of a code block keeps its
// indentation, to the next multiple of 4 or of the project's
// .editorconfig width for the block's language.
func TestCodeBlockTabs(t *testing.T) {
	const answerText = "Here:\n\n```go\nfunc sub(a, b int) int {\n\treturn a - b\n}\n```\n\nAnd:\n\n```py\ndef f():\n\treturn 1\n```"
	tests := []struct {
		name, editorconfig string
		goIndent, pyIndent string
	}{
		{"default", "", "    return a - b", "    return 1"},
		{"editorconfig", "root = true\n[*]\nindent_size = 2\n[*.go]\nindent_style = tab\ntab_width = 8\n", "        return a - b", "  return 1"},
		{"braces", "[*.{go,py}]\nindent_size = 3\n", "   return a - b", "   return 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.editorconfig != "" {
				if err := os.WriteFile(filepath.Join(dir, ".editorconfig"), []byte(tt.editorconfig), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m := testModelIn(t, dir, 80, 30)
			m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
				userMsg("msg_01", "Write sub"),
				answer("msg_02", "msg_01", 100, text(answerText)),
			}})
			got := screen(m)
			for _, want := range []string{tt.goIndent, tt.pyIndent} {
				if !hasLine(got, want) {
					t.Errorf("no line %q in:\n%s", want, got)
				}
			}
			if strings.Contains(got, "\t") {
				t.Errorf("a tab reached the screen:\n%q", got)
			}
		})
	}
}

// TestToolOutputTabs: a file read shows its tabs expanded with the
// file's width, a command's output with the default.
func TestToolOutputTabs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".editorconfig"), []byte("[*.go]\ntab_width = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := testModelIn(t, dir, 80, 30)
	m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
		userMsg("msg_01", "Read it"),
		answer("msg_02", "msg_01", 100,
			toolCall("c1", "bash", `{"command":"cat x"}`, client.ToolCompleted, "a\n\tb\n"),
			toolCall("c2", "read", `{"filePath":"x.go"}`, client.ToolCompleted, "func f() {\n\treturn\n}")),
	}})
	m.Update(keyPress("ctrl+o")) // expands the newest call, the read
	got := screen(m)
	for _, want := range []string{"   " + "    b", "     " + "  return"} {
		if !hasLine(got, want) {
			t.Errorf("no line %q in:\n%s", want, got)
		}
	}
}

// hasLine reports whether a line of s, trailing spaces aside, is want.
func hasLine(s, want string) bool {
	for _, l := range lines(s) {
		if strings.TrimRight(l, " ") == want {
			return true
		}
	}
	return false
}
