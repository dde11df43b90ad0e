package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestShellExternalPathForms has the model copy a file out of the project
// with bash under the default rules, naming the destination in forms the
// shell expands to a directory outside it: $HOME quoted or braced, and
// another user's home followed by "..". Each must ask external_directory
// about the directory it reaches (rejected: nobody can be asked in run)
// and create nothing; a copy inside the project runs.
func TestShellExternalPathForms(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs bash commands")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	type form struct {
		name, dest string // dest: the destination as the command writes it
		dir        string // the directory it lies in; "" for the home directory
	}
	forms := []form{
		{"quoted home", `"$HOME"/f`, ""},
		{"home in quotes", `"$HOME/f"`, ""},
		{"braced home", `${HOME}/f`, ""},
		{"bare home", `$HOME/f`, ""},
	}
	if u, err := user.Current(); err == nil && u.Username != "" && !strings.ContainsAny(u.Username, "/ '") {
		if fi, err := os.Stat(u.HomeDir); err == nil && fi.IsDir() {
			// ~user/../…/outside/f: the user's home, up to the root, down
			// to a directory outside the project.
			outside := t.TempDir()
			up := strings.Repeat("../", strings.Count(strings.Trim(u.HomeDir, "/"), "/")+1)
			forms = append(forms, form{"user's home", "~" + u.Username + "/" + up + strings.TrimPrefix(outside, "/") + "/f", outside})
		}
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": "cp a.txt " + f.dest})
			p := newProject(t, fmt.Sprintf("step\ncall call_1 bash %s\nfinish tool-calls\nstep\ntext Done.\nfinish stop\n", args), map[string]string{"a.txt": "a\n"})
			p.trust()
			dir := f.dir
			if dir == "" {
				dir = p.home
			}
			stdout, stderr, code := p.run("run", "copy it")
			want := "permission requested: external_directory (" + filepath.Join(dir, "*") + ")"
			if code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("cp a.txt %s: exit status %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", f.dest, code, want, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "f")); err == nil {
				t.Errorf("cp a.txt %s wrote outside the project without asking", f.dest)
			}
		})
	}
}
