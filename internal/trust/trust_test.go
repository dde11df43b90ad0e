package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheck follows a project through trust, a change of each kind, and
// revocation.
func TestCheck(t *testing.T) {
	proj, state := t.TempDir(), t.TempDir()
	write(t, proj, "opencode.json", `{"mcp": {}}`)
	write(t, proj, ".opencode/command/a.md", "run !`ls`")
	write(t, proj, "src/main.go", "package main")
	s := Open(filepath.Join(state, "trust.json"))
	fp := func() Fingerprint { return Sum(proj, Surface(proj, proj)) }

	if v := s.Check(proj, fp()); v.State != Untrusted || v.Warning != "" {
		t.Fatalf("new project: %+v", v)
	}
	if err := s.Trust(proj, fp(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if v := s.Check(proj, fp()); v.State != Trusted {
		t.Fatalf("after trust: %+v", v)
	}
	write(t, proj, "src/main.go", "package main // edited")
	if v := s.Check(proj, fp()); v.State != Trusted {
		t.Fatalf("a change outside the surface: %+v", v)
	}
	steps := []struct {
		change func()
		want   string
	}{
		{func() { write(t, proj, "opencode.json", `{"mcp": {"x": {"type": "local", "command": ["sh"]}}}`) }, "changed opencode.json"},
		{func() { write(t, proj, ".mcp.json", `{}`) }, "added .mcp.json"},
		{func() { _ = os.Remove(filepath.Join(proj, ".opencode/command/a.md")) }, "removed .opencode/command/a.md"},
		{func() { write(t, proj, ".claude/settings.json", `{}`) }, "added .claude/settings.json"},
		{func() { write(t, proj, ".codeloop/tools/t", "#!/bin/sh") }, "added .codeloop/tools/t"},
		{func() { _ = os.Chmod(filepath.Join(proj, ".codeloop/tools/t"), 0o755) }, "changed .codeloop/tools/t"},
	}
	for _, st := range steps {
		if err := s.Trust(proj, fp(), time.Now()); err != nil {
			t.Fatal(err)
		}
		st.change()
		v := s.Check(proj, fp())
		if v.State != Changed || !slices.Contains(v.Changes, st.want) {
			t.Errorf("after %q: %+v", st.want, v)
		}
	}
	if err := s.Revoke(proj); err != nil {
		t.Fatal(err)
	}
	if v := s.Check(proj, fp()); v.State != Untrusted {
		t.Errorf("after revoke: %+v", v)
	}
}

// TestBadStore checks that a store that cannot be read trusts nothing,
// says why in one line, and never panics; revoking replaces it.
func TestBadStore(t *testing.T) {
	proj := t.TempDir()
	fp := Fingerprint{"opencode.json": "x"}
	cases := map[string]func(p string){
		"corrupt":   func(p string) { _ = os.WriteFile(p, []byte(`{"projects": {`), 0o600) },
		"wrong":     func(p string) { _ = os.WriteFile(p, []byte(`[1,2]`), 0o600) },
		"directory": func(p string) { _ = os.Mkdir(p, 0o700) },
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "trust.json")
			// A valid entry first, so that "not trusted" is not vacuous.
			if err := Open(p).Trust(proj, fp, time.Now()); err != nil {
				t.Fatal(err)
			}
			_ = os.Remove(p)
			mk(p)
			v := Open(p).Check(proj, fp)
			if v.State != Untrusted || v.Warning == "" || strings.Contains(v.Warning, "\n") {
				t.Errorf("verdict %+v, want untrusted with a one-line warning", v)
			}
			if err := Open(p).Trust(proj, fp, time.Now()); err == nil && name != "directory" {
				t.Errorf("trusting over a damaged store succeeded; want it refused")
			}
		})
	}
	t.Run("legacy", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "trust.json")
		_ = os.WriteFile(p, []byte(`{"projects": {"`+proj+`": {"digest": "abc", "time": 1}}}`), 0o600)
		if v := Open(p).Check(proj, fp); v.State != Changed || len(v.Changes) != 1 {
			t.Errorf("legacy entry: %+v", v)
		}
	})
}

func TestSurfaceChain(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	got := Surface(root, sub)
	for _, want := range []string{
		filepath.Join(root, "opencode.json"), filepath.Join(root, "a", "codeloop.jsonc"),
		filepath.Join(sub, ".mcp.json"), filepath.Join(sub, ".opencode", "command"),
		filepath.Join(root, ".claude", "settings.local.json"), filepath.Join(root, ".codeloop", "tools"),
	} {
		if !slices.Contains(got, want) {
			t.Errorf("surface lacks %s", want)
		}
	}
	if slices.Contains(got, filepath.Join(filepath.Dir(root), "opencode.json")) {
		t.Error("surface reaches above the worktree")
	}
}

func TestReferenced(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "scripts/hook.sh", "#!/bin/sh")
	write(t, dir, "server.js", "")
	outside := filepath.Join(t.TempDir(), "x.sh")
	_ = os.WriteFile(outside, nil, 0o644)
	tests := []struct {
		cmd  string
		want []string
	}{
		{"sh scripts/hook.sh --flag", []string{"scripts/hook.sh"}},
		{`"$CLAUDE_PROJECT_DIR"/scripts/hook.sh`, []string{"scripts/hook.sh"}},
		{"node ./server.js; echo ../x", []string{"server.js"}},
		{"sh " + outside, nil},
		{"sh ../../etc/passwd", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range Referenced(dir, tt.cmd) {
			r, _ := filepath.Rel(dir, p)
			got = append(got, r)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Referenced(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

// TestSumFollowsLinks is a project whose surface files are symbolic links
// to files and directories elsewhere in the project: a change to what a
// link leads to changes the fingerprint under the name of each link that
// leads to it; a link out of the project counts by its text only, and a
// link loop ends.
func TestSumFollowsLinks(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	write(t, proj, "cfg/real.json", `{}`)
	write(t, proj, "cmds/a.md", "hello")
	write(t, proj, "cmds/sub/b.md", "hello")
	write(t, outside, "x.json", `{}`)
	link := func(target, name string) {
		t.Helper()
		p := filepath.Join(proj, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	link("cfg/real.json", "codeloop.json")
	link("../cmds", ".opencode/command")
	link("../../../cmds/sub", ".codeloop/tools/sub/s")
	link(filepath.Join(outside, "x.json"), "opencode.json")
	link("..", ".opencode/agent/loop")
	fp := func() Fingerprint { return Sum(proj, Surface(proj, proj)) }

	tests := []struct {
		name   string
		change func()
		want   []string
	}{
		{"linked file", func() { write(t, proj, "cfg/real.json", `{"mcp": {}}`) }, []string{"changed codeloop.json"}},
		{"file in a linked directory", func() { write(t, proj, "cmds/a.md", "!`id`") }, []string{"changed .opencode/command/a.md"}},
		{"file added to a linked directory", func() { write(t, proj, "cmds/c.md", "!`id`") }, []string{"added .opencode/command/c.md"}},
		{"link inside a directory", func() { write(t, proj, "cmds/sub/b.md", "!`id`") }, []string{"changed .codeloop/tools/sub/s/b.md", "changed .opencode/command/sub/b.md"}},
		{"file outside the project", func() { write(t, outside, "x.json", `{"mcp": {}}`) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fp()
			tt.change()
			got := before.Diff(fp())
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("diff = %q, want it to hold %q", got, w)
				}
			}
			if len(tt.want) == 0 && len(got) != 0 {
				t.Errorf("diff = %q, want none", got)
			}
		})
	}
}
