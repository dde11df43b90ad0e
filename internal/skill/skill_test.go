package skill

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// extract writes the files of a txtar archive under dir.
func extract(t *testing.T, archive, dir string) {
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

// fixture extracts testdata/tree.txtar and returns the options that search
// it, with the log written to logBuf.
func fixture(t *testing.T, logBuf *bytes.Buffer) (Options, string) {
	t.Helper()
	root := t.TempDir()
	extract(t, "testdata/tree.txtar", root)
	home := filepath.Join(root, "home")
	return Options{
		Home: home,
		GlobalConfigDirs: []string{
			filepath.Join(home, ".config", "opencode"),
			filepath.Join(home, ".config", "codeloop"),
		},
		Dir:      filepath.Join(root, "repo", "pkg"),
		Worktree: filepath.Join(root, "repo"),
		Paths:    []string{"~/custom"},
		Log:      slog.New(slog.NewTextHandler(logBuf, nil)),
	}, root
}

func TestDiscover(t *testing.T) {
	var logBuf bytes.Buffer
	opts, root := fixture(t, &logBuf)
	set := Discover(opts)
	rel := func(p string) string {
		r, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}

	want := map[string]struct{ location, description string }{
		"deploy":    {"repo/.claude/skills/deploy/SKILL.md", "Deploy from the project"},
		"lint":      {"home/custom/lint/SKILL.md", "Run the linters the custom way"},
		"review":    {"home/.config/codeloop/skill/review/SKILL.md", "Review (codeloop global)"},
		"nested":    {"repo/pkg/.agents/skills/nested/SKILL.md", "Nested: quoted Use it in pkg."},
		"colon":     {"repo/.opencode/skills/colon/SKILL.md", "Use when: the tests fail"},
		"useronly":  {"repo/.codeloop/skills/useronly/SKILL.md", "Only by hand"},
		"modelonly": {"repo/.codeloop/skills/modelonly/SKILL.md", "Only for the model"},
		"nameless":  {"repo/.codeloop/skills/nameless/SKILL.md", "The first paragraph describes the skill."},
		"empty":     {"repo/.codeloop/skills/empty/SKILL.md", ""},
	}
	var names []string
	for _, sk := range set.All() {
		names = append(names, sk.Name)
		w, ok := want[sk.Name]
		if !ok {
			t.Errorf("unexpected skill %q from %s", sk.Name, rel(sk.Location))
			continue
		}
		if got := rel(sk.Location); got != w.location {
			t.Errorf("%s: location %s, want %s", sk.Name, got, w.location)
		}
		if sk.Description != w.description {
			t.Errorf("%s: description %q, want %q", sk.Name, sk.Description, w.description)
		}
		if sk.Dir != filepath.Dir(sk.Location) {
			t.Errorf("%s: dir %s is not the directory of %s", sk.Name, sk.Dir, sk.Location)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("All is not sorted: %v", names)
	}
	for name := range want {
		if _, ok := set.Get(name); !ok {
			t.Errorf("skill %q missing", name)
		}
	}
	if sk, _ := set.Get("deploy"); sk.Content != "# Deploy\n\nRun scripts/run.sh, then read reference.md." {
		t.Errorf("deploy content = %q", sk.Content)
	}

	// Every skipped file and every override is reported, naming the file.
	type warning struct {
		path     string
		override bool
	}
	wantWarnings := []warning{
		{"repo/.claude/skills/broken/SKILL.md", false},
		{"repo/.claude/skills/deploy/SKILL.md", true},
		{"repo/.agents/skills/spaced/SKILL.md", false},
		{"repo/.agents/skills/unclosed/SKILL.md", false},
		{"home/.config/codeloop/skill/review/SKILL.md", true},
		{"home/custom/lint/SKILL.md", true},
	}
	var got []warning
	for _, w := range set.Warnings {
		got = append(got, warning{rel(w.Path), errors.Is(w, ErrOverridden)})
		if !strings.Contains(logBuf.String(), w.Path) {
			t.Errorf("warning for %s was not logged", w.Path)
		}
	}
	if !slices.Equal(got, wantWarnings) {
		t.Errorf("warnings:\n got %v\nwant %v", got, wantWarnings)
	}
	for _, w := range set.Warnings {
		if strings.HasSuffix(w.Path, "deploy/SKILL.md") && !strings.Contains(w.Error(), filepath.Join(root, "home/.claude/skills/deploy/SKILL.md")) {
			t.Errorf("override warning %q does not name the overridden file", w.Error())
		}
	}
}

func TestDiscoverSwitches(t *testing.T) {
	tests := []struct {
		name       string
		noClaude   bool
		noExternal bool
		present    []string
		absent     []string
	}{
		{name: "all", present: []string{"deploy", "nested", "colon"}},
		{name: "no claude", noClaude: true, present: []string{"nested", "colon", "lint"}, absent: []string{"deploy"}},
		{name: "no external", noExternal: true, present: []string{"colon", "lint", "review"}, absent: []string{"deploy", "nested"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logBuf bytes.Buffer
			opts, _ := fixture(t, &logBuf)
			opts.NoClaude, opts.NoExternal = tt.noClaude, tt.noExternal
			set := Discover(opts)
			for _, n := range tt.present {
				if _, ok := set.Get(n); !ok {
					t.Errorf("%q missing", n)
				}
			}
			for _, n := range tt.absent {
				if _, ok := set.Get(n); ok {
					t.Errorf("%q present", n)
				}
			}
		})
	}
}

func TestDiscoverConfigDirs(t *testing.T) {
	var logBuf bytes.Buffer
	opts, root := fixture(t, &logBuf)
	opts.ConfigDirs = []string{filepath.Join(root, "repo", ".codeloop")}
	set := Discover(opts)
	for _, n := range []string{"useronly", "deploy", "nested"} {
		if _, ok := set.Get(n); !ok {
			t.Errorf("%q missing", n)
		}
	}
	for _, n := range []string{"colon", "review"} {
		if _, ok := set.Get(n); ok {
			t.Errorf("%q found outside the given config directories", n)
		}
	}
}

func TestForModelAndCommands(t *testing.T) {
	var logBuf bytes.Buffer
	opts, _ := fixture(t, &logBuf)
	set := Discover(opts)

	var model []string
	for _, sk := range set.ForModel(func(name string) bool { return name != "colon" }) {
		model = append(model, sk.Name)
	}
	wantModel := []string{"deploy", "lint", "modelonly", "nameless", "nested", "review"}
	if !slices.Equal(model, wantModel) {
		t.Errorf("ForModel = %v, want %v", model, wantModel)
	}

	var cmds []string
	for _, c := range set.Commands() {
		cmds = append(cmds, c.Name)
		sk, _ := set.Get(c.Name)
		if c.Template != sk.Content || c.Description != sk.Description {
			t.Errorf("command %s does not carry its skill's body and description", c.Name)
		}
	}
	wantCmds := []string{"colon", "deploy", "empty", "lint", "nameless", "nested", "review", "useronly"}
	if !slices.Equal(cmds, wantCmds) {
		t.Errorf("Commands = %v, want %v", cmds, wantCmds)
	}
	for _, c := range set.Commands() {
		if c.Name == "lint" && c.ArgumentHint != "[paths...]" {
			t.Errorf("lint argument hint = %q", c.ArgumentHint)
		}
	}
}
