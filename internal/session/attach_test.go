package session

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// pngBytes is a 1×1 PNG.
var pngBytes, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// TestAttach sends user messages with file and agent parts and checks what
// is stored and what the model is sent, with the real read tool.
func TestAttach(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, data := range map[string]string{
		"main.go":       "package main\n\nfunc main() {}\n",
		"lines.txt":     "one\ntwo\nthree\nfour\n",
		"pkg/a.go":      "package pkg\n",
		"pkg/b.go":      "package pkg\n",
		"logo.png":      string(pngBytes),
		"notes.bin":     "\x00\x01\x02binary",
		"sub/deep.txt":  "deep\n",
		".env":          "SECRET=xyz\n",
		".env.example":  "SECRET=changeme\n",
		"certs/tls.pem": "-----BEGIN xyz-----\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fileURL := func(name string) string { return "file://" + filepath.ToSlash(filepath.Join(dir, name)) }
	textData := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("pasted words\n"))

	tests := []struct {
		name  string
		parts []message.Part
		// stored are the parts stored after the user's text, one line each:
		// "text:<substring>" for synthetic text, "file:<mime>:<url prefix>",
		// "agent:<name>".
		stored []string
		// sent are substrings of the text the model receives, notSent
		// substrings of no part it receives.
		sent, notSent []string
	}{
		{
			name:   "text file",
			parts:  []message.Part{&message.FilePart{Mime: "text/plain", Filename: "main.go", URL: fileURL("main.go")}},
			stored: []string{`text:Called the Read tool with the following input: {"filePath":"` + filepath.Join(dir, "main.go") + `"}`, "text:1: package main", "file:text/plain:file://"},
			sent:   []string{"Called the Read tool", "3: func main() {}"},
		},
		{
			name:   "line range",
			parts:  []message.Part{&message.FilePart{Mime: "text/plain", Filename: "lines.txt", URL: fileURL("lines.txt") + "?start=2&end=3"}},
			stored: []string{`text:"limit":2,"offset":2`, "text:2: two\n3: three", "file:text/plain:file://"},
			sent:   []string{"2: two", "3: three"},
		},
		{
			name:   "directory",
			parts:  []message.Part{&message.FilePart{Mime: "application/x-directory", Filename: "pkg", URL: fileURL("pkg")}},
			stored: []string{"text:Called the Read tool", "text:a.go\nb.go", "file:application/x-directory:file://"},
			sent:   []string{"a.go\\nb.go"},
		},
		{
			name:   "image named as text",
			parts:  []message.Part{&message.FilePart{Mime: "text/plain", Filename: "logo.png", URL: fileURL("logo.png")}},
			stored: []string{"text:Called the Read tool", "text:Image read successfully", "file:image/png:data:image/png;base64,"},
			sent:   []string{"Image read successfully"},
		},
		{
			name:   "image",
			parts:  []message.Part{&message.FilePart{Mime: "image/png", Filename: "logo.png", URL: fileURL("logo.png")}},
			stored: []string{"text:Called the Read tool", "file:image/png:data:image/png;base64,iVBOR"},
		},
		{
			name:   "binary file as text",
			parts:  []message.Part{&message.FilePart{Mime: "text/plain", Filename: "notes.bin", URL: fileURL("notes.bin")}},
			stored: []string{"text:Read tool failed to read " + filepath.Join(dir, "notes.bin") + " with the following error: cannot read binary file"},
			sent:   []string{"Read tool failed"},
		},
		{
			name:   "missing file",
			parts:  []message.Part{&message.FilePart{Mime: "text/plain", Filename: "gone.go", URL: fileURL("gone.go")}},
			stored: []string{"text:Read tool failed to read " + filepath.Join(dir, "gone.go") + " with the following error: file not found"},
		},
		{
			name:   "pasted text",
			parts:  []message.Part{&message.FilePart{Mime: "text/plain", Filename: "paste.txt", URL: textData}},
			stored: []string{`text:{"filePath":"paste.txt"}`, "text:pasted words", "file:text/plain:data:"},
			sent:   []string{"pasted words"},
		},
		{
			name:   "remote file kept",
			parts:  []message.Part{&message.FilePart{Mime: "image/png", Filename: "x.png", URL: "https://example.com/x.png"}},
			stored: []string{"file:image/png:https://example.com/x.png"},
		},
		{
			name:    "secret file",
			parts:   []message.Part{&message.FilePart{Mime: "text/plain", Filename: ".env", URL: fileURL(".env")}},
			stored:  []string{"text:The user attached " + filepath.Join(dir, ".env") + `, a secret file (it matches the secret_files pattern ".env*")`},
			sent:    []string{"read it with the read tool"},
			notSent: []string{"xyz"},
		},
		{
			name:    "secret file as media",
			parts:   []message.Part{&message.FilePart{Mime: "application/x-pem-file", Filename: "tls.pem", URL: fileURL("certs/tls.pem")}},
			stored:  []string{`text:a secret file (it matches the secret_files pattern "*.pem")`},
			notSent: []string{"xyz", "eHl6"},
		},
		{
			name:   "exempt example",
			parts:  []message.Part{&message.FilePart{Mime: "text/plain", Filename: ".env.example", URL: fileURL(".env.example")}},
			stored: []string{"text:Called the Read tool", "text:1: SECRET=changeme", "file:text/plain:file://"},
			sent:   []string{"SECRET=changeme"},
		},
		{
			name:   "agent",
			parts:  []message.Part{&message.AgentPart{Name: "explore", Source: &message.AgentSource{Value: "@explore", Start: 5, End: 13}}},
			stored: []string{"agent:explore", "text:mention explore"},
			sent:   []string{"mention explore"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, ":memory:")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var read tool.Tool
			for _, tl := range tool.Builtins(tool.Env{Ripgrep: "-"}) {
				if tl.ID() == "read" {
					read = tl
				}
			}
			main := fakellm.NewScripted("fake", append(fakellm.Text("t", "Seen."), fakellm.Finish(llm.FinishStop, llm.Usage{})...))
			sessions := NewSessions(st, bus.New(time.Second), "test")
			eng, err := New(Config{
				Sessions: sessions, Models: &testModels{main: main, small: fakellm.NewScripted("fake")},
				Agents: StaticAgents{BuildAgent()}, Read: read, Worktree: dir, Directory: dir,
				Texts: Texts{Mention: func(a string) string { return "mention " + a }},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			sess, _ := sessions.Create(ctx, CreateInput{ProjectID: "p", Directory: dir, Title: "Attach"})
			parts := append([]message.Part{TextPart("look at this")}, tt.parts...)
			if _, err := eng.Prompt(ctx, PromptInput{SessionID: sess.ID, Parts: parts}); err != nil {
				t.Fatal(err)
			}
			msgs, _ := sessions.Messages(ctx, sess.ID)
			var got []string
			for _, p := range msgs[0].Parts[1:] {
				switch p := p.(type) {
				case *message.TextPart:
					if !p.Synthetic {
						t.Errorf("text part %q is not synthetic", p.Text)
					}
					got = append(got, "text:"+p.Text)
				case *message.FilePart:
					got = append(got, "file:"+p.Mime+":"+p.URL)
				case *message.AgentPart:
					got = append(got, "agent:"+p.Name)
				}
			}
			if len(got) != len(tt.stored) {
				t.Fatalf("stored parts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.stored, "\n"))
			}
			for i, want := range tt.stored {
				kind, rest, _ := strings.Cut(want, ":")
				if !strings.HasPrefix(got[i], kind+":") || !strings.Contains(got[i], rest) {
					t.Errorf("part %d = %.200q, want %s containing %q", i, got[i], kind, rest)
				}
				if kind == "file" && !strings.HasPrefix(strings.TrimPrefix(got[i], "file:"), rest) {
					t.Errorf("part %d = %.200q, want a URL starting %q", i, got[i], rest)
				}
			}
			reqs := main.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			var sent strings.Builder
			for _, p := range reqs[0].Messages[0].Parts {
				sent.WriteString(strings.ReplaceAll(p.Text, "\n", "\\n") + "\n")
			}
			for _, want := range tt.sent {
				if !strings.Contains(sent.String(), want) {
					t.Errorf("the model was not sent %q:\n%s", want, sent.String())
				}
			}
			for _, p := range reqs[0].Messages[0].Parts {
				for _, bad := range tt.notSent {
					if strings.Contains(p.Text, bad) || strings.Contains(p.URL, bad) || strings.Contains(string(p.Data), bad) {
						t.Errorf("the model was sent %q", bad)
					}
				}
			}
		})
	}
}
