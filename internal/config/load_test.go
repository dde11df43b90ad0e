package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/paths"
)

// tree is a test layout under one temporary root: home/ is the home
// directory and proj/ a git worktree whose proj/sub/dir is the working
// directory.
type tree struct {
	root, home, proj, cwd string
}

func newTree(t *testing.T, git bool) tree {
	t.Helper()
	root := t.TempDir()
	tr := tree{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	tr.cwd = filepath.Join(tr.proj, "sub", "dir")
	must(t, os.MkdirAll(tr.cwd, 0o755))
	must(t, os.MkdirAll(tr.home, 0o755))
	if git {
		must(t, os.MkdirAll(filepath.Join(tr.proj, ".git"), 0o755))
	}
	return tr
}

// write creates files given relative to the root.
func (tr tree) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(tr.root, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// load runs Load with env (values starting with "@" are paths under root).
func (tr tree) load(t *testing.T, env map[string]string) (*Loaded, error) {
	t.Helper()
	vars := map[string]string{"HOME": tr.home}
	for k, v := range env {
		if strings.HasPrefix(v, "@") {
			v = filepath.Join(tr.root, v[1:])
		}
		vars[k] = v
	}
	getenv := fakeEnv(vars)
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	return Load(context.Background(), LoadOptions{Cwd: tr.cwd, Getenv: getenv, Dirs: dirs})
}

func model(m string) string { return `{"model": "` + m + `"}` }

func TestLoadLocations(t *testing.T) {
	t.Parallel()
	const (
		ocGlobal = "home/.config/opencode/"
		clGlobal = "home/.config/codeloop/"
	)
	tests := []struct {
		name   string
		noGit  bool
		files  map[string]string
		env    map[string]string
		want   string // the model in force
		source string // where it came from: a path under root or an env name
	}{
		{name: "nothing", want: ""},
		{name: "global opencode", files: map[string]string{ocGlobal + "opencode.json": model("oc")}, want: "oc", source: ocGlobal + "opencode.json"},
		{name: "global opencode file order", files: map[string]string{
			ocGlobal + "config.json": model("1"), ocGlobal + "opencode.json": model("2"), ocGlobal + "opencode.jsonc": model("3"),
		}, want: "3", source: ocGlobal + "opencode.jsonc"},
		{name: "global codeloop over opencode", files: map[string]string{
			ocGlobal + "opencode.jsonc": model("oc"), clGlobal + "config.json": model("1"), clGlobal + "codeloop.json": model("cl"),
		}, want: "cl", source: clGlobal + "codeloop.json"},
		{name: "global codeloop jsonc last", files: map[string]string{
			clGlobal + "codeloop.json": model("a"), clGlobal + "codeloop.jsonc": model("b"),
		}, want: "b", source: clGlobal + "codeloop.jsonc"},
		{name: "XDG_CONFIG_HOME moves both globals", files: map[string]string{
			"xdg/opencode/opencode.json": model("oc"), "xdg/codeloop/codeloop.json": model("cl"), clGlobal + "codeloop.json": model("ignored"),
		}, env: map[string]string{"XDG_CONFIG_HOME": "@xdg"}, want: "cl", source: "xdg/codeloop/codeloop.json"},
		{name: "OPENCODE_CONFIG over global", files: map[string]string{
			clGlobal + "codeloop.json": model("g"), "x/oc.json": model("env"),
		}, env: map[string]string{"OPENCODE_CONFIG": "@x/oc.json"}, want: "env", source: "x/oc.json"},
		{name: "CODELOOP_CONFIG over OPENCODE_CONFIG", files: map[string]string{
			"x/oc.json": model("oc"), "x/cl.json": model("cl"),
		}, env: map[string]string{"OPENCODE_CONFIG": "@x/oc.json", "CODELOOP_CONFIG": "@x/cl.json"}, want: "cl", source: "x/cl.json"},
		{name: "project over CODELOOP_CONFIG", files: map[string]string{
			"x/cl.json": model("env"), "proj/opencode.json": model("proj"),
		}, env: map[string]string{"CODELOOP_CONFIG": "@x/cl.json"}, want: "proj", source: "proj/opencode.json"},
		{name: "project inner over outer", files: map[string]string{
			"proj/codeloop.jsonc": model("outer"), "proj/sub/opencode.json": model("inner"),
		}, want: "inner", source: "proj/sub/opencode.json"},
		{name: "project codeloop over opencode in one directory", files: map[string]string{
			"proj/sub/dir/codeloop.json": model("cl"), "proj/sub/dir/opencode.jsonc": model("oc"),
		}, want: "cl", source: "proj/sub/dir/codeloop.json"},
		{name: "above the worktree is not read", files: map[string]string{
			"opencode.json": model("above"), "proj/opencode.json": model("root"),
		}, want: "root", source: "proj/opencode.json"},
		{name: "without git the worktree is the cwd", noGit: true, files: map[string]string{
			"proj/opencode.json": model("outside"), "proj/sub/dir/opencode.json": model("cwd"),
		}, want: "cwd", source: "proj/sub/dir/opencode.json"},
		{name: ".opencode directory over project file", files: map[string]string{
			"proj/sub/dir/codeloop.json": model("file"), "proj/.opencode/opencode.json": model("dir"),
		}, want: "dir", source: "proj/.opencode/opencode.json"},
		{name: ".codeloop over .opencode at one level, inner over outer", files: map[string]string{
			"proj/.codeloop/codeloop.json": model("outer"), "proj/sub/.opencode/opencode.jsonc": model("oc"), "proj/sub/.codeloop/codeloop.jsonc": model("cl"),
		}, want: "cl", source: "proj/sub/.codeloop/codeloop.jsonc"},
		{name: "~/.opencode over project", files: map[string]string{
			"proj/.codeloop/codeloop.json": model("proj"), "home/.opencode/opencode.json": model("home"),
		}, want: "home", source: "home/.opencode/opencode.json"},
		{name: "OPENCODE_CONFIG_DIR over project directories", files: map[string]string{
			"proj/.codeloop/codeloop.json": model("proj"), "ocdir/opencode.json": model("ocdir"),
		}, env: map[string]string{"OPENCODE_CONFIG_DIR": "@ocdir"}, want: "ocdir", source: "ocdir/opencode.json"},
		{name: "CODELOOP_CONFIG_DIR over OPENCODE_CONFIG_DIR", files: map[string]string{
			"ocdir/opencode.json": model("oc"), "cldir/codeloop.json": model("cl"), clGlobal + "codeloop.json": model("global"),
		}, env: map[string]string{"OPENCODE_CONFIG_DIR": "@ocdir", "CODELOOP_CONFIG_DIR": "@cldir"}, want: "cl", source: "cldir/codeloop.json"},
		{name: "OPENCODE_CONFIG_CONTENT over directories", files: map[string]string{
			"cldir/codeloop.json": model("dir"),
		}, env: map[string]string{"CODELOOP_CONFIG_DIR": "@cldir", "OPENCODE_CONFIG_CONTENT": model("content")}, want: "content", source: "OPENCODE_CONFIG_CONTENT"},
		{name: "CODELOOP_CONFIG_CONTENT over OPENCODE_CONFIG_CONTENT",
			env: map[string]string{"OPENCODE_CONFIG_CONTENT": model("oc"), "CODELOOP_CONFIG_CONTENT": model("cl")}, want: "cl", source: "CODELOOP_CONFIG_CONTENT"},
		{name: "CODELOOP_DISABLE_PROJECT_CONFIG", files: map[string]string{
			clGlobal + "codeloop.json": model("global"), "proj/opencode.json": model("proj"), "proj/.opencode/opencode.json": model("dir"),
		}, env: map[string]string{"CODELOOP_DISABLE_PROJECT_CONFIG": "1"}, want: "global", source: clGlobal + "codeloop.json"},
		{name: "OPENCODE_DISABLE_PROJECT_CONFIG", files: map[string]string{
			ocGlobal + "opencode.json": model("global"), "proj/codeloop.json": model("proj"),
		}, env: map[string]string{"OPENCODE_DISABLE_PROJECT_CONFIG": "true"}, want: "global", source: ocGlobal + "opencode.json"},
		{name: "~/.claude is not a config directory", files: map[string]string{
			"home/.claude/opencode.json": model("claude"),
		}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t, !tt.noGit)
			tr.write(t, tt.files)
			got, err := tr.load(t, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if got.Config.Model != tt.want {
				t.Errorf("model = %q, want %q (files read: %v)", got.Config.Model, tt.want, got.Files)
			}
			wantSource := tt.source
			if wantSource != "" && !strings.HasSuffix(wantSource, "_CONTENT") {
				wantSource = filepath.Join(tr.root, wantSource)
			}
			if got.Sources["model"] != wantSource {
				t.Errorf("source = %q, want %q", got.Sources["model"], wantSource)
			}
			// Every file with a config in it was read, unless it should not be.
			for name := range tt.files {
				p := filepath.Join(tr.root, name)
				if p == wantSource && !slices.Contains(got.Files, p) {
					t.Errorf("files %v miss %s", got.Files, p)
				}
			}
		})
	}
}

func TestLoadDirsAndWorktree(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{
		"home/.config/opencode/agent/a.md":    "",
		"home/.config/codeloop/codeloop.json": "{}",
		"proj/.opencode/command/c.md":         "",
		"proj/sub/.codeloop/skill/s/SKILL.md": "",
		"home/.claude/skills/x/SKILL.md":      "",
		"cldir/codeloop.json":                 "{}",
	})
	got, err := tr.load(t, map[string]string{"CODELOOP_CONFIG_DIR": "@cldir"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(tr.home, ".config", "opencode"),
		filepath.Join(tr.home, ".config", "codeloop"),
		filepath.Join(tr.proj, ".opencode"),
		filepath.Join(tr.proj, "sub", ".codeloop"),
		filepath.Join(tr.root, "cldir"),
	}
	if !reflect.DeepEqual(got.Dirs, want) {
		t.Errorf("dirs =\n%v\nwant\n%v", got.Dirs, want)
	}
	if got.Worktree != tr.proj {
		t.Errorf("worktree = %q, want %q", got.Worktree, tr.proj)
	}
	wantFiles := []string{filepath.Join(tr.home, ".config", "codeloop", "codeloop.json"), filepath.Join(tr.root, "cldir", "codeloop.json")}
	if !reflect.DeepEqual(got.Files, wantFiles) {
		t.Errorf("files = %v, want %v", got.Files, wantFiles)
	}
}

func TestLoadMerge(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{
		"home/.config/opencode/opencode.json": `{
			"instructions": ["a.md", "b.md"],
			"provider": {"p": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://x", "timeout": 1000, "custom": {"k": 1, "j": 2}}}},
			"agent": {"build": {"model": "p/m", "permission": {"bash": {"*": "ask", "git *": "allow"}}, "temperature": 0.2}},
			"permission": {"edit": "ask", "bash": "ask"},
			"mcp": {"srv": {"type": "local", "command": ["srv"], "enabled": true}},
			"lsp": {"gopls": {"disabled": true}},
			"plugin": ["one@1.0.0", "@scope/two@1"],
			"compaction": {"auto": true, "reserved": 100},
			"disabled_providers": ["x", "y"],
		}`,
		"proj/opencode.jsonc": `{
			"instructions": ["b.md", "c.md"],
			"provider": {"p": {"options": {"apiKey": "k", "custom": {"j": 3}}}},
			"agent": {"build": {"permission": {"bash": "deny"}, "top_p": 0.5}},
			"permission": {"bash": {"ls *": "allow"}},
			"mcp": {"srv": {"enabled": false}},
			"lsp": {"pyright": {"disabled": true}},
			"plugin": ["one@2.0.0"],
			"compaction": {"reserved": 200},
			"disabled_providers": ["z"],
		}`,
	})
	got, err := tr.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := got.Trusted // the project is trusted: its files apply in full
	if !reflect.DeepEqual(c.Instructions, []string{"a.md", "b.md", "c.md"}) {
		t.Errorf("instructions = %v", c.Instructions)
	}
	p := c.Provider["p"]
	if p.NPM != "@ai-sdk/openai-compatible" || p.Options.BaseURL != "http://x" || p.Options.APIKey != "k" || p.Options.Timeout.Millis != 1000 {
		t.Errorf("provider = %+v", p)
	}
	if !reflect.DeepEqual(p.Options.Extra["custom"], map[string]any{"k": 1.0, "j": 3.0}) {
		t.Errorf("custom option = %v, want deep-merged", p.Options.Extra["custom"])
	}
	build := c.Agent["build"]
	wantAgentRules := Permission{{Permission: "bash", Pattern: "*", Action: "ask"}, {Permission: "bash", Pattern: "git *", Action: "allow"}, {Permission: "bash", Pattern: "*", Action: "deny"}}
	if build.Model != "p/m" || *build.Temperature != 0.2 || *build.TopP != 0.5 || !reflect.DeepEqual(build.Permission, wantAgentRules) {
		t.Errorf("agent build = %+v", build)
	}
	wantRules := Permission{{Permission: "edit", Pattern: "*", Action: "ask"}, {Permission: "bash", Pattern: "*", Action: "ask"}, {Permission: "bash", Pattern: "ls *", Action: "allow"}}
	if !reflect.DeepEqual(c.Permission, wantRules) {
		t.Errorf("permission = %v, want %v", c.Permission, wantRules)
	}
	srv := c.MCP["srv"]
	if srv.Type != "local" || !reflect.DeepEqual(srv.Command, []string{"srv"}) || srv.Enabled == nil || *srv.Enabled {
		t.Errorf("mcp srv = %+v, want local and disabled", srv)
	}
	if string(c.LSP) != `{"gopls":{"disabled":true},"pyright":{"disabled":true}}` {
		t.Errorf("lsp = %s", c.LSP)
	}
	if len(c.Plugin) != 2 || c.Plugin[0].Spec != "@scope/two@1" || c.Plugin[1].Spec != "one@2.0.0" {
		t.Errorf("plugin = %+v", c.Plugin)
	}
	if *c.Compaction.Auto != true || *c.Compaction.Reserved != 200 {
		t.Errorf("compaction = %+v", c.Compaction)
	}
	if !reflect.DeepEqual(c.DisabledProviders, []string{"z"}) {
		t.Errorf("disabled_providers = %v, want the later list", c.DisabledProviders)
	}
	if got.Sources["plugin"] != filepath.Join(tr.proj, "opencode.jsonc") {
		t.Errorf("sources = %v", got.Sources)
	}
}

func TestLoadPermissionEnv(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{"proj/opencode.json": `{"permission": {"bash": "allow"}}`})
	got, err := tr.load(t, map[string]string{"OPENCODE_PERMISSION": `{"bash": "deny"}`, "CODELOOP_PERMISSION": `"ask"`})
	if err != nil {
		t.Fatal(err)
	}
	want := Permission{{Permission: "bash", Pattern: "*", Action: "allow"}, {Permission: "bash", Pattern: "*", Action: "deny"}, {Permission: "*", Pattern: "*", Action: "ask"}}
	if !reflect.DeepEqual(got.Trusted.Permission, want) || got.Sources["permission"] != "CODELOOP_PERMISSION" {
		t.Errorf("permission = %v from %q", got.Trusted.Permission, got.Sources["permission"])
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		env   map[string]string
		file  string // file the error names, relative to root, or an env name
		line  int
	}{
		{name: "bad project file", files: map[string]string{"proj/opencode.json": "{\n\"modle\": 1}"}, file: "proj/opencode.json", line: 2},
		{name: "bad global file", files: map[string]string{"home/.config/opencode/opencode.jsonc": "{\"model\": 1}"}, file: "home/.config/opencode/opencode.jsonc", line: 1},
		{name: "missing CODELOOP_CONFIG", env: map[string]string{"CODELOOP_CONFIG": "@nope.json"}, file: "nope.json"},
		{name: "bad content", env: map[string]string{"CODELOOP_CONFIG_CONTENT": `{"share": true}`}, file: "CODELOOP_CONFIG_CONTENT", line: 1},
		{name: "missing {file:} in project", files: map[string]string{"proj/codeloop.json": `{"model": "{file:x.txt}"}`}, file: "proj/codeloop.json", line: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t, true)
			tr.write(t, tt.files)
			_, err := tr.load(t, tt.env)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			want := tt.file
			if !strings.HasSuffix(want, "_CONTENT") {
				want = filepath.Join(tr.root, want)
			}
			if ce.File != want || ce.Line != tt.line {
				t.Errorf("error at %s:%d, want %s:%d (%v)", ce.File, ce.Line, want, tt.line, err)
			}
		})
	}
}

func TestLoadCanceled(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{"proj/opencode.json": "{}"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, LoadOptions{Cwd: tr.cwd, Getenv: fakeEnv(map[string]string{"HOME": tr.home}), Dirs: paths.Dirs{Home: tr.home}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
