package prompt

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/tool"
)

func TestNested(t *testing.T) {
	type step struct {
		session string
		message string   // the assistant message making the read ("m1" when empty)
		history []string // instruction files ($ROOT-relative) earlier reads in the history attached
		pruned  bool     // those reads' outputs were compacted or pruned away
		file    string   // relative to $ROOT/repo/app unless absolute after scrubbing
		want    []string
	}
	both := []string{"repo/app/internal/AGENTS.md", "repo/app/internal/db/CLAUDE.md"}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "outermost first, once per message", steps: []step{
			{session: "s1", file: "internal/db/store.go", want: both},
			{session: "s1", file: "internal/db/store.go"},
			{session: "s1", file: "internal/gen/gen.go"},
			{session: "s2", file: "internal/db/store.go", want: both},
		}},
		{name: "files in the system prompt are skipped", steps: []step{
			// gen/AGENTS.md is a config instruction, app/ the working directory.
			{session: "s1", file: "internal/gen/gen.go", want: []string{"repo/app/internal/AGENTS.md"}},
			{session: "s1", file: "main.go"},
		}},
		{name: "inside the worktree but beside the working directory", steps: []step{
			{session: "s1", file: "../lib/x.go", want: []string{"repo/lib/AGENTS.md"}},
			{session: "s1", file: "../lib"},
		}},
		{name: "reading a directory uses its own file", steps: []step{
			{session: "s1", file: "internal/db", want: both},
		}},
		{name: "outside the worktree", steps: []step{
			{session: "s1", file: "../../outside/f.go"},
		}},
		{name: "reading an instruction file itself", steps: []step{
			{session: "s1", file: "internal/AGENTS.md"},
			{session: "s1", file: "internal/db/store.go", want: []string{"repo/app/internal/db/CLAUDE.md"}},
		}},
		{name: "a later message finds them in the history", steps: []step{
			{session: "s1", message: "m1", file: "internal/db/store.go", want: both},
			{session: "s1", message: "m2", history: both, file: "internal/db/store.go"},
		}},
		{name: "after a restart the history counts", steps: []step{
			{session: "s1", message: "m9", history: []string{"repo/app/internal/AGENTS.md"}, file: "internal/db/store.go",
				want: []string{"repo/app/internal/db/CLAUDE.md"}},
		}},
		{name: "compacted or pruned away, attached again", steps: []step{
			{session: "s1", message: "m1", file: "internal/db/store.go", want: both},
			{session: "s1", message: "m2", history: both, pruned: true, file: "internal/db/store.go", want: both},
		}},
		{name: "a new message not in the history yet attaches again", steps: []step{
			{session: "s1", message: "m1", file: "internal/db/store.go", want: both},
			{session: "s1", message: "m2", file: "internal/db/store.go", want: both},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			o := e.options("repo", "app", "app/internal/gen/AGENTS.md")
			n := NewNested(NewBuilder(o))
			for i, st := range tt.steps {
				if st.message == "" {
					st.message = "m1"
				}
				var loaded []any
				for _, h := range st.history {
					loaded = append(loaded, filepath.Join(e.root, h))
				}
				read := &message.ToolPart{Tool: "read", State: message.ToolState{Status: message.ToolCompleted,
					Metadata: map[string]any{tool.MetaLoaded: loaded}}}
				if st.pruned {
					read.State.Time.Compacted = 1
				}
				history := []message.Message{{Info: message.Info{Role: message.RoleAssistant}, Parts: []message.Part{read}}}
				call := &tool.Call{SessionID: st.session, MessageID: st.message, Dir: o.Dir, Worktree: o.Worktree,
					Messages: func() []message.Message { return history }}
				got := n.Attach(context.Background(), call, st.file)
				var sources []string
				for _, r := range got {
					first, _, _ := strings.Cut(r, "\n")
					src, ok := strings.CutPrefix(first, "<system-reminder>Instructions from: "+e.root+"/")
					if !ok || !strings.HasSuffix(r, "\n</system-reminder>") {
						t.Fatalf("step %d: badly wrapped reminder %q", i, r)
					}
					sources = append(sources, src)
				}
				if !slices.Equal(sources, st.want) {
					t.Errorf("step %d (%s): attached %v, want %v", i, st.file, sources, st.want)
				}
			}
		})
	}
}

func TestNestedContent(t *testing.T) {
	e := newEnv(t)
	o := e.options("repo", "app")
	got := NewNested(NewBuilder(o)).Attach(context.Background(), &tool.Call{SessionID: "s"},
		filepath.Join(o.Dir, "internal", "db", "store.go"))
	want := "<system-reminder>Instructions from: " + filepath.Join(o.Dir, "internal", "db", "CLAUDE.md") +
		"\nMigrations are append-only.\n</system-reminder>"
	if len(got) != 2 || got[1] != want {
		t.Errorf("got %q\nwant second %q", got, want)
	}

	// Instructions, the read tool's seam, returns the same texts unwrapped
	// (the read tool wraps them), and shares the claims of the message.
	n := NewNested(NewBuilder(o))
	plain := n.Instructions(context.Background(), &tool.Call{SessionID: "s"}, filepath.Join(o.Dir, "internal", "db", "store.go"))
	if len(plain) != 2 || "<system-reminder>"+plain[1]+"\n</system-reminder>" != want {
		t.Errorf("Instructions = %q", plain)
	}
	if again := n.Attach(context.Background(), &tool.Call{SessionID: "s"}, filepath.Join(o.Dir, "internal", "db", "store.go")); len(again) != 0 {
		t.Errorf("attached again after Instructions: %q", again)
	}
}

func TestNestedAfterBuild(t *testing.T) {
	e := newEnv(t)
	o := e.options("repo", "app", "internal/db/CLAUDE.md")
	b := NewBuilder(o)
	if _, err := b.Build(context.Background(), Input{Date: date}); err != nil {
		t.Fatal(err)
	}
	got := NewNested(b).Attach(context.Background(), &tool.Call{SessionID: "s"}, filepath.Join(o.Dir, "internal", "db", "store.go"))
	if len(got) != 1 || !strings.Contains(got[0], filepath.Join(o.Dir, "internal", "AGENTS.md")) {
		t.Errorf("got %q, want only internal/AGENTS.md (db/CLAUDE.md is in the system prompt)", got)
	}
}

// TestNestedWithReadTool wires the tracker into the real read tool, as the
// app does, and checks the instructions arrive once, wrapped once.
func TestNestedWithReadTool(t *testing.T) {
	e := newEnv(t)
	o := e.options("repo", "app")
	n := NewNested(NewBuilder(o))
	var read tool.Tool
	for _, tl := range tool.Builtins(tool.Env{Instructions: n.Instructions}) {
		if tl.ID() == "read" {
			read = tl
		}
	}
	if read == nil {
		t.Fatal("no read tool")
	}
	run := func() string {
		res, err := read.Run(context.Background(), &tool.Call{
			ID: "c", Tool: "read", SessionID: "s", Dir: o.Dir, Worktree: o.Worktree,
			Input: []byte(`{"filePath": "internal/db/store.go"}`),
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Output
	}
	first := run()
	if strings.Count(first, "<system-reminder>") != 1 ||
		!strings.Contains(first, "Instructions from: "+filepath.Join(o.Dir, "internal", "AGENTS.md")) ||
		!strings.Contains(first, "Migrations are append-only.") {
		t.Errorf("first read:\n%s", first)
	}
	if second := run(); strings.Contains(second, "system-reminder") {
		t.Errorf("second read attached again:\n%s", second)
	}
}
