package shellscan

import (
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
)

func TestArity(t *testing.T) {
	tests := []struct {
		cmd, want string
	}{
		{"touch foo.txt", "touch *"},
		{"ls", "ls *"},
		{"git checkout main", "git checkout *"},
		{"git commit -m x", "git commit *"},
		{"git", "git *"},
		{"git config user.name x", "git config user.name *"},
		{"git remote add origin url", "git remote add *"},
		{"npm install", "npm install *"},
		{"npm run dev", "npm run dev *"},
		{"npm run", "npm run *"},
		{"docker compose up -d", "docker compose up *"},
		{"docker run nginx", "docker run *"},
		{"python script.py", "python script.py *"},
		{"cargo add tokio --features full", "cargo add tokio *"},
		{"go test ./...", "go test *"},
		{"go mod tidy", "go mod tidy *"},
		{"kubectl get pods -A", "kubectl get *"},
		{"aws s3 ls s3://b", "aws s3 ls *"},
		{"gh pr list", "gh pr list *"},
		{"make", "make *"},
		{"unknowntool sub arg", "unknowntool *"},
		{"yarn run build --watch", "yarn run build *"},
	}
	for _, tt := range tests {
		if got := AlwaysPattern(strings.Fields(tt.cmd)); got != tt.want {
			t.Errorf("AlwaysPattern(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
		// The always pattern covers the command it came from.
		if !permission.Match(tt.cmd, AlwaysPattern(strings.Fields(tt.cmd))) {
			t.Errorf("%q does not match its own always pattern", tt.cmd)
		}
	}
	if got := Arity(nil); len(got) != 0 {
		t.Errorf("Arity(nil) = %v", got)
	}
	for key := range arity {
		if n := len(strings.Fields(key)); n > maxArityKey {
			t.Errorf("arity key %q has %d words, more than maxArityKey", key, n)
		}
	}
}
