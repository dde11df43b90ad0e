package shellscan

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/permission"
)

var update = flag.Bool("update", false, "rewrite the expected patterns and paths of testdata/bash")

// corpusRules is the ruleset every corpus case is decided under, written as
// a user would write it in a config file.
const corpusRules = `{"bash": {"*": "allow", "touch *": "deny", "rm *": "deny"}}`

// corpusCase is one command of testdata/bash with what it must give.
type corpusCase struct {
	file, name string
	cmd        string
	decision   string   // allow, ask or deny
	flags      []string // unanalysable, inline, creates, norun, case-sensitive
	patterns   []string
	paths      []string // "kind path"
}

func (c corpusCase) has(flag string) bool { return slices.Contains(c.flags, flag) }

// caseInsensitive reports whether program names ignore case here.
func caseInsensitive() bool {
	return runtime.GOOS == "darwin" || runtime.GOOS == "ios" || runtime.GOOS == "windows"
}

// loadCorpus reads every case of testdata/bash.
func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	files, err := filepath.Glob("testdata/bash/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var out []corpusCase
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			c := corpusCase{file: file, name: f.Name}
			var cmd []string
			for _, line := range strings.Split(strings.TrimRight(string(f.Data), "\n"), "\n") {
				switch {
				case line == "$":
					cmd = append(cmd, "")
				case strings.HasPrefix(line, "$ "):
					cmd = append(cmd, line[2:])
				case strings.HasPrefix(line, "> "):
					fields := strings.Fields(line[2:])
					c.decision, c.flags = fields[0], fields[1:]
				case strings.HasPrefix(line, "@ "):
					c.paths = append(c.paths, line[2:])
				case line != "":
					c.patterns = append(c.patterns, line)
				}
			}
			c.cmd = strings.Join(cmd, "\n")
			if c.cmd == "" || (c.decision != "allow" && c.decision != "ask" && c.decision != "deny") {
				t.Fatalf("%s: case %s needs $ lines and a > allow|ask|deny line", file, f.Name)
			}
			out = append(out, c)
		}
	}
	return out
}

// rulesOf is the ruleset of a config file's permission section, in the
// file's order.
func rulesOf(t *testing.T, section string) permission.Ruleset {
	t.Helper()
	var p config.Permission
	if err := json.Unmarshal([]byte(section), &p); err != nil {
		t.Fatal(err)
	}
	var out permission.Ruleset
	for _, r := range p {
		out = append(out, permission.Rule{Permission: r.Permission, Pattern: r.Pattern, Action: permission.Action(r.Action), Floor: r.Floor})
	}
	return out
}

// corpusService is the ask flow of "codeloop run --auto".
func corpusService(t *testing.T) (*approval.Service, permission.Ruleset) {
	t.Helper()
	return approval.NewService(nil, nil, approval.Options{AutoApprove: true, NonInteractive: true}), rulesOf(t, corpusRules)
}

// decideBash runs the analysis of cmd through the ask flow.
func decideBash(ctx context.Context, svc *approval.Service, rules permission.Ruleset, a Analysis) (string, error) {
	err := svc.Ask(ctx, rules, permission.Request{SessionID: "ses_corpus", Permission: "bash", Patterns: a.Patterns,
		Always: a.Always, Unanalysable: a.Unanalysable, Reason: a.Reason, Aliases: aliases(a.Aliases), Inline: inlines(a.Inline)})
	var denied *permission.DeniedError
	var rejected *permission.RejectedError
	switch {
	case err == nil:
		return "allow", nil
	case errors.As(err, &denied):
		return "deny", err
	case errors.As(err, &rejected):
		return "ask", err // an ask that auto-approval may not answer
	default:
		return "error", err
	}
}

// aliases and inlines are the analysis's aliases and inline code as a
// permission request carries them.
func aliases(as []Alias) []permission.Alias {
	var out []permission.Alias
	for _, a := range as {
		out = append(out, permission.Alias(a))
	}
	return out
}

func inlines(ins []Inline) []permission.Inline {
	var out []permission.Inline
	for _, in := range ins {
		out = append(out, permission.Inline(in))
	}
	return out
}

func pathLines(a Analysis) []string {
	var out []string
	for _, p := range a.Paths {
		kind := string(p.Kind)
		if p.Dynamic {
			kind += "?"
		}
		out = append(out, kind+" "+p.Path)
	}
	return out
}

func TestBashCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 100 {
		t.Fatalf("the corpus has %d cases, want at least 100", len(cases))
	}
	svc, rules := corpusService(t)
	got := make(map[string]Analysis)
	for _, c := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(c.file), ".txtar")+"/"+c.name, func(t *testing.T) {
			if c.has("case-sensitive") && caseInsensitive() {
				t.Skip("program names ignore case here")
			}
			a := AnalyzeBash(c.cmd)
			got[c.file+"\x00"+c.name] = a
			decision, err := decideBash(t.Context(), svc, rules, a)
			if decision != c.decision {
				t.Errorf("%q: decision %s (%v), want %s\nanalysis: %+v", c.cmd, decision, err, c.decision, a)
			}
			if a.Unanalysable != c.has("unanalysable") {
				t.Errorf("%q: unanalysable = %v (%s), want %v", c.cmd, a.Unanalysable, a.Reason, c.has("unanalysable"))
			}
			if (len(a.Inline) > 0) != c.has("inline") {
				t.Errorf("%q: inline = %+v, want %v", c.cmd, a.Inline, c.has("inline"))
			}
			if a.Unanalysable && a.Reason == "" {
				t.Errorf("%q: unanalysable without a reason", c.cmd)
			}
			if *update {
				return
			}
			if !slices.Equal(a.Patterns, c.patterns) {
				t.Errorf("%q: patterns\n got %q\nwant %q", c.cmd, a.Patterns, c.patterns)
			}
			if p := pathLines(a); !slices.Equal(p, c.paths) {
				t.Errorf("%q: paths\n got %q\nwant %q", c.cmd, p, c.paths)
			}
		})
	}
	if *update {
		rewriteCorpus(t, cases, got)
	}
}

// rewriteCorpus writes the analysis's patterns and paths into the corpus
// files, keeping the commands and the hand-written decisions.
func rewriteCorpus(t *testing.T, cases []corpusCase, got map[string]Analysis) {
	byFile := make(map[string][]corpusCase)
	for _, c := range cases {
		byFile[c.file] = append(byFile[c.file], c)
	}
	for file, cs := range byFile {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cs {
			a := got[file+"\x00"+c.name]
			var b strings.Builder
			for _, line := range strings.Split(c.cmd, "\n") {
				fmt.Fprintf(&b, "$ %s\n", line)
			}
			b.WriteString(strings.TrimRight("> "+c.decision+" "+strings.Join(c.flags, " "), " ") + "\n")
			for _, p := range a.Patterns {
				b.WriteString(p + "\n")
			}
			for _, p := range pathLines(a) {
				b.WriteString("@ " + p + "\n")
			}
			ar.Files[i].Data = []byte(strings.ReplaceAll(b.String(), "$ \n", "$\n"))
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
