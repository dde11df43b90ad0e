package prompt

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/skill"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// extract writes the files of a txtar archive under dir.
func extract(t testing.TB, archive, dir string) {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// instructionServer serves /remote.md and counts the requests; every other
// path is a 404.
func instructionServer(t testing.TB) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/remote.md" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Remote rules\n\nFetched over HTTP: keep functions short.\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

type env struct {
	root, url string
	hits      *atomic.Int32
	log       *bytes.Buffer
}

// newEnv extracts the fixture and starts the instruction server.
func newEnv(t testing.TB) *env {
	root := t.TempDir()
	extract(t, "testdata/project.txtar", root)
	srv, hits := instructionServer(t)
	return &env{root: root, url: srv.URL, hits: hits, log: &bytes.Buffer{}}
}

// options returns the Builder options for the project in sub (with the
// working directory dir inside it) and the config instructions given.
func (e *env) options(project, dir string, instructions ...string) Options {
	home := filepath.Join(e.root, "home")
	dirs := paths.Dirs{Home: home, Config: filepath.Join(home, ".config", "codeloop")}
	getenv := func(string) string { return "" }
	return Options{
		Dir:          filepath.Join(e.root, project, dir),
		Worktree:     filepath.Join(e.root, project),
		Git:          true,
		Platform:     "linux",
		Home:         home,
		GlobalFiles:  DefaultGlobalFiles(dirs, getenv),
		Instructions: instructions,
		Log:          slog.New(slog.NewTextHandler(e.log, nil)),
	}
}

// skills discovers the fixture's skills for the project.
func (e *env) skills(o Options) []skill.Skill {
	return skill.Discover(skill.Options{Home: o.Home, Dir: o.Dir, Worktree: o.Worktree}).ForModel(nil)
}

// scrub replaces the temporary directory and the server address, which
// change on every run.
func (e *env) scrub(s string) string {
	s = strings.ReplaceAll(s, e.url, "$URL")
	return strings.ReplaceAll(s, e.root, "$ROOT")
}

var date = time.Date(2026, time.March, 14, 9, 30, 0, 0, time.UTC)

func TestBuildGolden(t *testing.T) {
	models := map[string]llm.Model{
		"anthropic": {ID: "claude-sonnet-4-5", ProviderID: "anthropic", Name: "Claude Sonnet 4.5"},
		"openai":    {ID: "gpt-5-codex", ProviderID: "openai", Name: "GPT-5 Codex"},
		"classic":   {ID: "gpt-4.1", ProviderID: "openai", Name: "GPT-4.1"},
		"gemini":    {ID: "gemini-2.5-pro", ProviderID: "google", Name: "Gemini 2.5 Pro"},
		"default":   {ID: "qwen3-coder", ProviderID: "openrouter", Name: "Qwen3 Coder"},
	}
	tests := []struct {
		name         string
		model        string
		project, dir string
		agentPrompt  string
		instructions []string
		mcp          map[string]string
		noSkills     bool
	}{
		{name: "anthropic", model: "anthropic", project: "repo", dir: "app"},
		{name: "openai", model: "openai", project: "repo", dir: "app"},
		{name: "openai-classic", model: "classic", project: "repo", dir: "app"},
		{name: "gemini", model: "gemini", project: "repo", dir: "app"},
		{name: "default", model: "default", project: "repo", dir: "app"},
		{name: "agent-prompt", model: "anthropic", project: "repo", dir: "app",
			agentPrompt: "You are a release assistant. Only touch CHANGELOG.md.", noSkills: true},
		{name: "claude-fallback", model: "anthropic", project: "fallback", dir: "web", noSkills: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			instructions := tt.instructions
			if tt.project == "repo" {
				instructions = []string{
					"docs/rules/*.md",
					"~/shared/team.md",
					e.url + "/remote.md",
					e.url + "/missing.md",
					"AGENTS.md", // already loaded as a project file
					"app/internal/gen/AGENTS.md",
				}
			}
			mcp := tt.mcp
			if tt.project == "repo" {
				mcp = map[string]string{
					"zeta":  "Call zeta_search before zeta_fetch.",
					"alpha": "Alpha's tools need an issue number.",
					"quiet": "  ",
				}
			}
			o := e.options(tt.project, tt.dir, instructions...)
			b := NewBuilder(o)
			in := Input{Model: models[tt.model], AgentPrompt: tt.agentPrompt, MCPInstructions: mcp, Date: date}
			if !tt.noSkills {
				in.Skills = e.skills(o)
			}
			first, err := b.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			// A second step gets exactly the same prompt, without fetching again.
			hits := e.hits.Load()
			second, err := b.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", first) != fmt.Sprintf("%q", second) {
				t.Error("the second build differs from the first")
			}
			if e.hits.Load() != hits {
				t.Errorf("the second build fetched again (%d requests, then %d)", hits, e.hits.Load())
			}
			checkGolden(t, filepath.Join("testdata", "golden", tt.name+".txtar"), e.scrub, first)
		})
	}
}

// checkGolden compares the blocks with the golden file, or rewrites it
// with -update.
func checkGolden(t *testing.T, path string, scrub func(string) string, blocks []string) {
	t.Helper()
	var a txtar.Archive
	for i, b := range blocks {
		a.Files = append(a.Files, txtar.File{Name: fmt.Sprintf("system[%d]", i), Data: []byte(scrub(b) + "\n")})
	}
	got := txtar.Format(&a)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("system prompt differs from %s (run go test -update to accept):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\n got %q", i+1, wl, gl)
		}
	}
	return ""
}

func TestInstructionsOrderAndSources(t *testing.T) {
	e := newEnv(t)
	o := e.options("repo", "app", "docs/rules/*.md", "~/shared/team.md", e.url+"/remote.md", e.url+"/missing.md",
		"AGENTS.md", filepath.Join(e.root, "repo", "lib", "*.md"))
	ins, err := NewBuilder(o).Instructions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range ins {
		got = append(got, e.scrub(in.Source))
	}
	want := []string{
		"$ROOT/home/.config/codeloop/AGENTS.md",
		"$ROOT/repo/AGENTS.md",
		"$ROOT/repo/app/AGENTS.md",
		"$ROOT/repo/docs/rules/a-errors.md",
		"$ROOT/repo/docs/rules/b-style.md",
		"$ROOT/home/shared/team.md",
		"$URL/remote.md",
		"$ROOT/repo/lib/AGENTS.md",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sources:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(e.log.String(), "missing.md") {
		t.Errorf("the failed fetch was not logged:\n%s", e.log.String())
	}
}

func TestGlobalFiles(t *testing.T) {
	tests := []struct {
		name     string
		remove   []string
		noClaude bool
		want     string
	}{
		{name: "codeloop first", want: "$ROOT/home/.config/codeloop/AGENTS.md"},
		{name: "claude when alone", remove: []string{"home/.config/codeloop/AGENTS.md"}, want: "$ROOT/home/.claude/CLAUDE.md"},
		{name: "no claude", remove: []string{"home/.config/codeloop/AGENTS.md"}, noClaude: true, want: "$ROOT/repo/AGENTS.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for _, r := range tt.remove {
				if err := os.Remove(filepath.Join(e.root, r)); err != nil {
					t.Fatal(err)
				}
			}
			o := e.options("repo", "app")
			o.NoClaude = tt.noClaude
			ins, err := NewBuilder(o).Instructions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(ins) == 0 || e.scrub(ins[0].Source) != tt.want {
				t.Errorf("first instruction = %+v, want %s", ins, tt.want)
			}
		})
	}
}

func TestFetchTimeoutAndCache(t *testing.T) {
	release := make(chan struct{})
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	dir := t.TempDir()
	b := NewBuilder(Options{Dir: dir, Instructions: []string{srv.URL + "/slow.md"}, FetchTimeout: 50 * time.Millisecond})
	for range 2 {
		ins, err := b.Instructions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != 0 {
			t.Fatalf("a timed-out URL gave %+v", ins)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the URL was requested %d times, want once per builder", n)
	}

	// A caller that gives up does not poison the cache.
	b2 := NewBuilder(Options{Dir: dir, Instructions: []string{srv.URL + "/slow.md"}, FetchTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := b2.Instructions(ctx); err == nil {
		t.Error("a cancelled context gave no error")
	}
	if len(b2.fetch.cache) != 0 {
		t.Error("a cancelled fetch was cached")
	}
}

func TestFamilyOf(t *testing.T) {
	tests := []struct {
		id, family string
		want       Family
	}{
		{"claude-opus-4-1", "", Anthropic},
		{"anthropic/claude-3.5-haiku", "", Anthropic},
		{"us.anthropic.claude-sonnet-4-20250514-v1:0", "", Anthropic},
		{"gpt-5", "", OpenAI},
		{"gpt-5-codex", "", OpenAI},
		{"gpt-5.1-mini", "", OpenAI},
		{"openrouter/openai/gpt-5-nano", "", OpenAI},
		{"gpt5", "", OpenAI},
		{"gpt-6", "", OpenAI},
		{"gpt-10-preview", "", OpenAI},
		{"codex-mini-latest", "", OpenAI},
		{"gpt-4.1", "", OpenAIClassic},
		{"gpt-4o-mini", "", OpenAIClassic},
		{"chatgpt-4o-latest", "", OpenAIClassic},
		{"gpt-3.5-turbo", "", OpenAIClassic},
		{"o1", "", OpenAIClassic},
		{"o3-mini", "", OpenAIClassic},
		{"openai/o4-mini", "", OpenAIClassic},
		{"openai/gpt-oss-120b", "", OpenAIClassic},
		{"my-proxy-model", "gpt-5", OpenAI},
		{"my-proxy-model", "gpt-4o", OpenAIClassic},
		{"gemini-2.5-flash", "", Gemini},
		{"google/gemini-3-pro-preview", "", Gemini},
		{"qwen3-coder", "", Default},
		{"ollama-llama3", "", Default},
		{"my-proxy-model", "claude-sonnet", Anthropic},
		{"", "", Default},
	}
	for _, tt := range tests {
		if got := FamilyOf(llm.Model{ID: tt.id, Family: tt.family}); got != tt.want {
			t.Errorf("FamilyOf(%q, %q) = %s, want %s", tt.id, tt.family, got, tt.want)
		}
	}
}

func TestTexts(t *testing.T) {
	texts := map[string]string{
		"plan": PlanReminder(), "build switch": BuildSwitchReminder(), "max steps": MaxSteps(),
		"compaction": CompactionSystem(), "continue": CompactionContinue(), "title": TitleSystem(),
		"explore": ExploreSystem(), "explore description": ExploreDescription(), "general description": GeneralDescription(),
	}
	for name, text := range texts {
		if text == "" || text != strings.TrimSpace(text) {
			t.Errorf("%s text is empty or not trimmed", name)
		}
	}
	for _, r := range []string{PlanReminder(), BuildSwitchReminder()} {
		if !strings.HasPrefix(r, "<system-reminder>") || !strings.HasSuffix(r, "</system-reminder>") {
			t.Errorf("reminder not wrapped: %.40q", r)
		}
	}
	sections := []string{"## Objective", "## Important Details", "## Work State", "### Completed", "### Active",
		"### Blocked", "## Next Move", "## Relevant Files"}
	create, upd := CompactionPrompt(""), CompactionPrompt("## Objective\n- old goal")
	for _, p := range []string{create, upd} {
		last := -1
		for _, s := range sections {
			i := strings.Index(p, s)
			if i <= last {
				t.Errorf("section %q missing or out of order", s)
			}
			last = i
		}
	}
	if strings.Contains(create, "<previous-summary>") || !strings.Contains(upd, "<previous-summary>\n## Objective\n- old goal\n</previous-summary>") {
		t.Error("the previous summary is not passed only when there is one")
	}
}

// TestCursorRulesOnPath checks where .cursorrules stands among the
// project's instruction files: every one on the path from the worktree
// root down is read when no other name exists there; CONTEXT.md and
// CLAUDE.md win (unless CLAUDE.md files are left out); Cursor's
// .cursor/rules files are not read.
func TestCursorRulesOnPath(t *testing.T) {
	root := t.TempDir()
	extract(t, "testdata/cursorrules.txtar", root)
	tests := []struct {
		name, project, dir string
		noClaude           bool
		want               []string
	}{
		{"cursorrules on the path", "cursor", "svc", false, []string{"cursor/.cursorrules", "cursor/svc/.cursorrules"}},
		{"from the root", "cursor", "", false, []string{"cursor/.cursorrules"}},
		{"context wins", "context", "", false, []string{"context/CONTEXT.md"}},
		{"claude wins", "claude", "", false, []string{"claude/CLAUDE.md"}},
		{"claude left out", "claude", "", true, []string{"claude/.cursorrules"}},
		{"blank file", "blank", "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(Options{Dir: filepath.Join(root, tt.project, tt.dir), Worktree: filepath.Join(root, tt.project),
				Home: filepath.Join(root, "home"), NoClaude: tt.noClaude})
			ins, err := b.Instructions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range ins {
				rel, _ := filepath.Rel(root, in.Source)
				got = append(got, filepath.ToSlash(rel))
				if !strings.HasPrefix(in.Text(), "Instructions from: "+in.Source+"\n") || strings.TrimSpace(in.Content) == "" {
					t.Errorf("instruction text %q", in.Text())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("sources %q, want %q", got, tt.want)
			}
		})
	}
}

// TestProviderPromptTodos checks which provider prompts tell the model to
// keep a todo list: every family's but the fallback's, which models of no
// known family get.
func TestProviderPromptTodos(t *testing.T) {
	tests := []struct {
		model string
		todos bool
	}{
		{"claude-sonnet-4-5", true},
		{"gpt-5-codex", true},
		{"gpt-4.1", true},
		{"gemini-2.5-pro", true},
		{"qwen3-coder", false},
		{"some-unknown-model", false},
	}
	for _, tt := range tests {
		text := ProviderPrompt(llm.Model{ID: tt.model})
		if got := strings.Contains(strings.ToLower(text), "todo"); got != tt.todos {
			t.Errorf("%s: the provider prompt mentions todos: %v, want %v", tt.model, got, tt.todos)
		}
	}
}
