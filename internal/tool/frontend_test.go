package tool_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/task"
	"github.com/codeloop/codeloop/internal/tool"
)

// frontEnds are the directories whose code shows tool calls: it learns
// what a call is from its part's kind, summary, touches and changes,
// never from its tool's id or its arguments' names.
var frontEnds = []string{"../tui", "../acp", "../web"}

// toolWords are the words only a front end that knows tools by name would
// write: the built-in tools' argument names spelt like no ordinary word
// (filePath, oldString, subagent_type) and their ids that contain an
// underscore. Ids that are ordinary words (read, bash) are also
// permission names, so comparisons of a part's tool catch those.
func toolWords(t *testing.T) map[string]bool {
	t.Helper()
	tools := append(tool.Builtins(tool.Env{Search: tool.NewSearch("", "", nil)}), task.New(task.Options{}))
	words := map[string]bool{}
	for _, tl := range tools {
		if strings.Contains(tl.ID(), "_") {
			words[tl.ID()] = true
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tl.Schema(), &schema); err != nil {
			t.Fatalf("%s schema: %v", tl.ID(), err)
		}
		for name := range schema.Properties {
			if strings.ContainsAny(name, "_ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				words[name] = true
			}
		}
	}
	for _, w := range []string{"filePath", "oldString", "subagent_type", "apply_patch"} {
		if !words[w] {
			t.Fatalf("the tools' words miss %s: the check sees nothing", w)
		}
	}
	return words
}

// TestFrontEndsDoNotKnowTools fails when a front end names a built-in
// tool's argument or compares a call's tool with an id.
func TestFrontEndsDoNotKnowTools(t *testing.T) {
	t.Parallel()
	words := toolWords(t)
	var alts []string
	for w := range words {
		alts = append(alts, regexp.QuoteMeta(w))
	}
	jsWord := regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)\b`)
	jsToolCompare := regexp.MustCompile(`\.tool\s*[!=]==?|[!=]==?\s*[\w.]*\.tool\b`)
	seen := 0
	for _, dir := range frontEnds {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch {
			case strings.HasSuffix(path, "_test.go"):
			case strings.HasSuffix(path, ".go"):
				seen++
				for _, p := range goProblems(t, path, words) {
					t.Errorf("%s", p)
				}
			case strings.HasSuffix(path, ".js"):
				seen++
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				for i, line := range strings.Split(string(b), "\n") {
					if m := jsWord.FindString(line); m != "" {
						t.Errorf("%s:%d names the tools' %q", path, i+1, m)
					}
					if jsToolCompare.MatchString(line) {
						t.Errorf("%s:%d compares a call's tool: %s", path, i+1, strings.TrimSpace(line))
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if seen < 10 {
		t.Fatalf("only %d front-end files checked", seen)
	}
}

// goProblems are the places in a Go file that name a tool word or compare
// a Tool field with a string.
func goProblems(t *testing.T, path string, words map[string]bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	isTool := func(e ast.Expr) bool {
		s, ok := e.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Tool"
	}
	isString := func(e ast.Expr) bool {
		l, ok := e.(*ast.BasicLit)
		return ok && l.Kind == token.STRING
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && words[s] {
				out = append(out, fset.Position(n.Pos()).String()+" names the tools' "+strconv.Quote(s))
			}
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isTool(n.X) && isString(n.Y) || isTool(n.Y) && isString(n.X)) {
				out = append(out, fset.Position(n.Pos()).String()+" compares a call's tool with an id")
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && isTool(n.Tag) {
				out = append(out, fset.Position(n.Pos()).String()+" switches on a call's tool")
			}
		}
		return true
	})
	return out
}
