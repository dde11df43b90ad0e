package server

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// filesRig is a served project holding a source file, a secret file, an
// ignored directory, .git, and links leading out of the project to a
// directory beside it.
func filesRig(t *testing.T) (*rig, string, string) {
	t.Helper()
	r := newRig(t, "", Options{})
	p, err := r.c.Path(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wt := p.Worktree
	outside := filepath.Join(filepath.Dir(wt), "outside")
	if out, err := exec.Command("git", "init", "-q", wt).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	files := map[string]string{
		filepath.Join(wt, "src", "main.go"):       "package main // zebra from main\n",
		filepath.Join(wt, ".env"):                 "SECRET_VALUE=hunter2\n",
		filepath.Join(wt, ".gitignore"):           "build/\n",
		filepath.Join(wt, "build", "out.txt"):     "built output zebra\n",
		filepath.Join(outside, "secret.txt"):      "outside zebra secret\n",
		filepath.Join(outside, "deeper", "x.txt"): "outside deeper\n",
	}
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{
		filepath.Join(wt, "escape"):        outside,
		filepath.Join(wt, "escape.txt"):    filepath.Join(outside, "secret.txt"),
		filepath.Join(wt, "src", "up.txt"): "../../outside/secret.txt",
	} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	return r, wt, outside
}

// TestFileRoutesStayInsideTheProject: the file routes read only inside
// the project, refusing "..", absolute paths outside it, links leading
// out, ignored files, .git and secret files, with 403; every one needs
// the token.
func TestFileRoutesStayInsideTheProject(t *testing.T) {
	r, wt, outside := filesRig(t)
	tests := []struct {
		path string
		want int
		has  string
	}{
		{"src/main.go", 200, "zebra from main"},
		{filepath.Join(wt, "src", "main.go"), 200, "zebra from main"},
		{"./src/main.go", 200, "zebra from main"},
		{"../outside/secret.txt", 403, "climbs out"},
		{"src/../../outside/secret.txt", 403, "climbs out"},
		{"src/../src/main.go", 403, "climbs out"},
		{filepath.Join(outside, "secret.txt"), 403, "outside the project"},
		{"/etc/passwd", 403, "outside the project"},
		{"~/.bashrc", 403, "outside the project"},
		{"escape.txt", 403, "outside the project"},
		{"escape/secret.txt", 403, "outside the project"},
		{"escape/deeper/x.txt", 403, "outside the project"},
		{"src/up.txt", 403, "outside the project"},
		{".env", 403, "secret file"},
		{"build/out.txt", 403, "ignored"},
		{".git/config", 403, "ignored"},
		{"src/missing.go", 404, ""},
	}
	for _, tt := range tests {
		code, body := r.do(r.request("GET", "/file/content?path="+url.QueryEscape(tt.path), ""))
		if code != tt.want || !strings.Contains(body, tt.has) {
			t.Errorf("GET /file/content?path=%s: %d %s, want %d holding %q", tt.path, code, body, tt.want, tt.has)
		}
		if code != 200 && (strings.Contains(body, "hunter2") || strings.Contains(body, "outside zebra")) {
			t.Errorf("GET /file/content?path=%s leaks the file: %s", tt.path, body)
		}
	}
	for _, path := range []string{"..", "../outside", "escape", "/", outside, ".git"} {
		if code, body := r.do(r.request("GET", "/file?path="+url.QueryEscape(path), "")); code != 403 {
			t.Errorf("GET /file?path=%s: %d %s, want 403", path, code, body)
		}
	}
	for _, target := range []string{"/file/content?path=src/main.go", "/file?path=", "/find?pattern=zebra", "/find/file?query=main", "/file/status"} {
		req := r.request("GET", target, "")
		req.Header.Del("Authorization")
		if code, body := r.do(req); code != 401 || strings.Contains(body, "zebra") {
			t.Errorf("GET %s without the token: %d %s, want 401", target, code, body)
		}
	}
}

// TestFileList lists a directory with OpenCode's shape: ignored entries
// marked, .git left out, links out of the project marked ignored.
func TestFileList(t *testing.T) {
	r, wt, _ := filesRig(t)
	code, body := r.do(r.request("GET", "/file?path=", ""))
	if code != 200 {
		t.Fatalf("GET /file: %d %s", code, body)
	}
	var nodes []struct {
		Name, Path, Absolute, Type string
		Ignored                    bool
	}
	if err := json.Unmarshal([]byte(body), &nodes); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range nodes {
		got[n.Name] = n.Type + map[bool]string{true: " ignored", false: ""}[n.Ignored]
		if n.Absolute != filepath.Join(wt, n.Path) {
			t.Errorf("%s: absolute %q", n.Name, n.Absolute)
		}
	}
	want := map[string]string{"src": "directory", "build": "directory ignored", ".env": "file", ".gitignore": "file", "escape": "directory ignored", "escape.txt": "file ignored"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q (all: %v)", name, got[name], w, got)
		}
	}
	if _, ok := got[".git"]; ok {
		t.Errorf(".git is listed: %v", got)
	}
}

// TestFindRoutes: text and name searches see what the grep and glob
// tools see: no secret file's lines, nothing ignored, nothing behind a
// link leading out.
func TestFindRoutes(t *testing.T) {
	r, _, _ := filesRig(t)
	code, body := r.do(r.request("GET", "/find?pattern=zebra", ""))
	if code != 200 {
		t.Fatalf("GET /find: %d %s", code, body)
	}
	var ms []struct {
		Path       struct{ Text string }
		Lines      struct{ Text string }
		LineNumber int `json:"line_number"`
		Submatches []struct {
			Match      struct{ Text string }
			Start, End int
		}
	}
	if err := json.Unmarshal([]byte(body), &ms); err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Path.Text != "src/main.go" || ms[0].LineNumber != 1 || len(ms[0].Submatches) != 1 || ms[0].Submatches[0].Match.Text != "zebra" {
		t.Errorf("GET /find?pattern=zebra: %s", body)
	}
	for _, pattern := range []string{"hunter2", "outside", "built"} {
		if code, body := r.do(r.request("GET", "/find?pattern="+pattern, "")); code != 200 || body != "[]\n" {
			t.Errorf("GET /find?pattern=%s: %d %s, want no match", pattern, code, body)
		}
	}
	code, body = r.do(r.request("GET", "/find/file?query=main", ""))
	if code != 200 || !strings.Contains(body, `"src/main.go"`) {
		t.Errorf("GET /find/file?query=main: %d %s", code, body)
	}
	for _, q := range []string{"out", "secret", "deeper"} {
		if code, body := r.do(r.request("GET", "/find/file?query="+q, "")); code != 200 || body != "[]\n" {
			t.Errorf("GET /find/file?query=%s: %d %s, want nothing", q, code, body)
		}
	}
	code, body = r.do(r.request("GET", "/find/file?query=sr&type=directory", ""))
	if code != 200 || body != "[\"src/\"]\n" {
		t.Errorf("GET /find/file?query=sr&type=directory: %d %s", code, body)
	}
}

// TestProjectAndGitRoutes: the project, its branch and git's changes.
func TestProjectAndGitRoutes(t *testing.T) {
	r, wt, _ := filesRig(t)
	if out, err := exec.Command("git", "-C", wt, "checkout", "-q", "-b", "topic").CombinedOutput(); err != nil {
		t.Fatalf("git checkout: %v: %s", err, out)
	}
	tests := []struct {
		path string
		has  []string
		not  []string
	}{
		{"/project/current", []string{`"worktree":` + strconv.Quote(wt), `"sandboxes":[]`, `"time":{"created":`}, nil},
		{"/project", []string{`[{"id":`}, nil},
		{"/vcs", []string{`{"branch":"topic"}`}, nil},
		{"/vcs/status", []string{`{"file":"src/main.go","additions":1,"deletions":0,"status":"added"}`}, []string{"build/", "hunter2"}},
		{"/file/status", []string{`{"path":"src/main.go","added":1,"removed":0,"status":"added"}`}, []string{"build/"}},
	}
	for _, tt := range tests {
		code, body := r.do(r.request("GET", tt.path, ""))
		if code != 200 {
			t.Errorf("GET %s: %d %s", tt.path, code, body)
			continue
		}
		for _, h := range tt.has {
			if !strings.Contains(body, h) {
				t.Errorf("GET %s: %s, want it to hold %s", tt.path, body, h)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(body, n) {
				t.Errorf("GET %s: %s holds %s", tt.path, body, n)
			}
		}
	}
}
