package shellscan

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
	"mvdan.cc/sh/v3/syntax"
)

func TestAnalyzeBashAlways(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"git commit -m 'fix: x' && git push origin main", []string{"git commit *", "git push *"}},
		{"npm run dev", []string{"npm run dev *"}},
		{"docker compose up -d", []string{"docker compose up *"}},
		{"ls; ls -la; ls /tmp", []string{"ls *"}},
		{"sudo npm install", []string{"sudo *", "npm install *"}},
		{"cd dir && go test ./...", []string{"cd *", "go test *"}},
		{"$x y", nil}, // nothing to approve for a dynamic program
	}
	for _, tt := range tests {
		if got := AnalyzeBash(tt.cmd).Always; !slices.Equal(got, tt.want) {
			t.Errorf("Always of %q = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestAnalyzeBashPaths(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string // "kind path"
	}{
		{"chmod 755 a.sh b.sh", []string{"write a.sh", "write b.sh"}},
		{"chmod +x a.sh", []string{"write a.sh"}},
		{"chmod --reference=ref a", []string{"write a"}},
		{"chown user:group f", []string{"write f"}},
		{"cp -r src dst", []string{"write src", "write dst"}},
		{"rm -- -weird", []string{"write -weird"}},
		{"cd /etc && cat passwd", []string{"read /etc", "read passwd"}},
		{"mkdir -p a/b c", []string{"write a/b", "write c"}},
		{"echo x > /etc/motd; echo y >> ~/log; cat < in", []string{"write /etc/motd", "write ~/log", "read in"}},
		{"ls >&2; ls 2>&-; ls >& out", []string{"write out"}},
		{"cmd &> all.log", []string{"write all.log"}},
		{"echo > /dev/null 2> /dev/stderr", nil},
		{"cat $f > \"$out\"", []string{"write? \"$out\"", "read? $f"}},
		{"sudo rm /etc/x", []string{"write /etc/x"}},
		{"touch {a,b}.txt", []string{"write a.txt", "write b.txt"}},
		{"source ./env.sh", []string{"read ./env.sh"}},
		{"grep x /etc/passwd", nil}, // not a file command
	}
	for _, tt := range tests {
		if got := pathLines(AnalyzeBash(tt.cmd)); !slices.Equal(got, tt.want) {
			t.Errorf("paths of %q = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestAnalyzeBashCommands(t *testing.T) {
	a := AnalyzeBash(`FOO=1 /usr/bin/env -i "git" commit -m "a b" 2>/dev/null`)
	want := []Command{
		{Name: "env", Args: []string{"-i", "git", "commit", "-m", "a b"}, Text: "env -i git commit -m 'a b' 2> /dev/null"},
		{Name: "git", Args: []string{"commit", "-m", "a b"}, Text: "git commit -m 'a b'"},
	}
	if !reflect.DeepEqual(a.Commands, want) || a.Unanalysable {
		t.Errorf("Commands = %+v, want %+v", a.Commands, want)
	}
	if !slices.Equal(a.Patterns, []string{want[0].Text, want[1].Text}) {
		t.Errorf("Patterns = %q", a.Patterns)
	}
	// Several reasons are all reported.
	a = AnalyzeBash("$a; $(b) c; alias x=y")
	if !a.Unanalysable || strings.Count(a.Reason, ";") < 2 {
		t.Errorf("reasons: %q", a.Reason)
	}
	// Too deep a nesting fails closed.
	deep := "touch marker"
	for range maxDepth + 2 {
		deep = "eval " + quote(deep)
	}
	if a := AnalyzeBash(deep); !a.Unanalysable {
		t.Errorf("nesting deeper than %d analysed: %+v", maxDepth, a.Patterns)
	}
}

// TestAnalyzeBashEveryday checks that commands an agent runs every day are
// analysed, not refused as unanalysable.
func TestAnalyzeBashEveryday(t *testing.T) {
	for _, c := range []string{
		"for i in 1 2 3; do echo $((i * 2)); done",
		"i=0; while [[ $i -lt 10 ]]; do i=$((i+1)); done",
		"n=${#list[@]}; for ((i=0;i<n;i++)); do echo ${list[i]}; done",
		"(( $# > 0 )) && echo args",
		"echo $((RANDOM % 10)); sleep $((2**3))",
		"x=${arr[-1]}; echo ${@:2} ${x:0:5}",
		"status=$?; if [ $status -ne 0 ]; then exit $status; fi",
		"count=$(ls | wc -l); echo \"Files: $count\"",
		"go test ./... 2>&1 | tail -20",
		"cd /work && git diff --stat HEAD~1",
		"npm install && npm run build",
		"find . -name '*.go' -not -path './vendor/*' | xargs gofmt -l",
		"grep -rn 'TODO' --include='*.go' . | head -50",
		"python3 -c 'print(1)'",
		"curl -s https://example.com | jq .",
		"cat <<'EOF' > /tmp/x.txt\nhello $USER\nEOF",
		"export GOFLAGS=-mod=mod; go build ./...",
		"ls -la ~/.config",
		"echo \"${HOME}/bin\"",
		"[[ -f go.mod ]] && echo yes",
		"for f in *.go; do wc -l \"$f\"; done",
		"while read -r line; do echo \"$line\"; done < file.txt",
		"set -euo pipefail; make test",
		"local_var=\"$(git rev-parse --short HEAD)\"; echo $local_var",
		"docker ps --format '{{.Names}}'",
		"tar -czf out.tgz src/ && ls -la out.tgz",
		"sed -i 's/foo/bar/g' file.txt",
		"awk '{print $1}' file.txt | sort | uniq -c | sort -rn",
		"timeout 30 go test -run TestX -v ./pkg/...",
		"kill -9 $(lsof -t -i:8080) 2>/dev/null || true",
	} {
		a := AnalyzeBash(c)
		if a.Unanalysable {
			t.Errorf("%q: %s", c, a.Reason)
		}
	}
}

// checkAnalysis is what must hold for any text: the patterns are the
// commands' texts, a reason comes with Unanalysable, and a text that parses
// and has a simple command gives a pattern or is unanalysable.
func checkAnalysis(t *testing.T, cmd string) {
	a := AnalyzeBash(cmd)
	if a.Unanalysable != (a.Reason != "") {
		t.Fatalf("%q: unanalysable %v with reason %q", cmd, a.Unanalysable, a.Reason)
	}
	for _, c := range a.Commands {
		if !slices.Contains(a.Patterns, c.Text) {
			t.Fatalf("%q: command %q has no pattern", cmd, c.Text)
		}
		if c.Dynamic && !a.Unanalysable {
			t.Fatalf("%q: dynamic command %q but analysable", cmd, c.Text)
		}
	}
	if len(a.Patterns) == 0 && !a.Unanalysable {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("%q does not parse (%v) but is analysable", cmd, err)
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				t.Fatalf("%q runs a command but gives no pattern", cmd)
			}
			return true
		})
	}
	if b := AnalyzeBash(cmd); !reflect.DeepEqual(a, b) {
		t.Fatalf("%q: two analyses differ", cmd)
	}
}

func FuzzAnalyzeBash(f *testing.F) {
	files, _ := filepath.Glob("testdata/bash/*.txtar")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range txtar.Parse(data).Files {
			var cmd []string
			for _, line := range strings.Split(string(af.Data), "\n") {
				if s, ok := strings.CutPrefix(line, "$ "); ok {
					cmd = append(cmd, s)
				}
			}
			f.Add(strings.Join(cmd, "\n"))
		}
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		checkAnalysis(t, cmd)
	})
}

func BenchmarkAnalyzeBash(b *testing.B) {
	cmd := `cd /src && git status --short | grep '^ M' | cut -c4- | xargs -I{} sh -c 'gofmt -l {} && go vet ./...' 2>&1 | tee /tmp/out.log`
	for b.Loop() {
		AnalyzeBash(cmd)
	}
}

func TestAnalyzeShell(t *testing.T) {
	tests := []struct {
		cmd, shell string
		want       []string
		bad        bool
	}{
		{"=touch marker", "/usr/bin/zsh", []string{"touch marker"}, false},
		{"touch marker", "/bin/mksh", []string{"touch marker"}, false},
		{"echo (touch marker)", "fish", nil, true},
		{"ls && rm x", "/bin/sh", []string{"ls", "rm x"}, false},
		{"ls && rm x", "/bin/dash", []string{"ls", "rm x"}, false},
		{"ls", "/bin/tcsh", nil, true},
		{"ls", "/usr/bin/nu", nil, true},
		{"ls", "pwsh", nil, true},
	}
	for _, tt := range tests {
		a := AnalyzeShell(tt.cmd, tt.shell)
		if !slices.Equal(a.Patterns, tt.want) || a.Unanalysable != tt.bad {
			t.Errorf("AnalyzeShell(%q, %q) = %q, %v (%s)", tt.cmd, tt.shell, a.Patterns, a.Unanalysable, a.Reason)
		}
	}
}
