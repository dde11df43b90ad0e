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
// shell expands to a directory outside it ($HOME quoted or braced, a
// user's home followed by "..") or in cp's and mv's target directory
// option. Each must ask external_directory
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
		name, cmd string // cmd copies a.txt to file in dir
		dir       string // the directory; "" for the home directory
		file      string // "" for f
	}
	forms := []form{
		{"quoted home", `cp a.txt "$HOME"/f`, "", ""},
		{"home in quotes", `cp a.txt "$HOME/f"`, "", ""},
		{"braced home", `cp a.txt ${HOME}/f`, "", ""},
		{"bare home", `cp a.txt $HOME/f`, "", ""},
	}
	// The destination given as cp's and mv's target directory option.
	for _, opt := range []string{"--target-directory=%s", "--target-dir=%s", "-t%s", "-ft %s", "-t %s"} {
		outside := t.TempDir()
		forms = append(forms,
			form{"cp " + opt, "cp " + fmt.Sprintf(opt, outside) + " a.txt", outside, "a.txt"},
			form{"mv " + opt, "cp a.txt f && mv " + fmt.Sprintf(opt, outside) + " f", outside, ""})
	}
	if u, err := user.Current(); err == nil && u.Username != "" && !strings.ContainsAny(u.Username, "/ '") {
		if fi, err := os.Stat(u.HomeDir); err == nil && fi.IsDir() {
			// ~user/../…/outside/f: the user's home, up to the root, down
			// to a directory outside the project.
			outside := t.TempDir()
			up := strings.Repeat("../", strings.Count(strings.Trim(u.HomeDir, "/"), "/")+1)
			forms = append(forms, form{"user's home", "cp a.txt ~" + u.Username + "/" + up + strings.TrimPrefix(outside, "/") + "/f", outside, ""})
		}
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": f.cmd})
			p := newProject(t, fmt.Sprintf("step\ncall call_1 bash %s\nfinish tool-calls\nstep\ntext Done.\nfinish stop\n", args), map[string]string{"a.txt": "a\n"})
			p.trust()
			dir := f.dir
			if dir == "" {
				dir = p.home
			}
			stdout, stderr, code := p.run("run", "copy it")
			want := "permission requested: external_directory (" + filepath.Join(dir, "*") + ")"
			if code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("%s: exit status %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", f.cmd, code, want, stdout, stderr)
			}
			file := f.file
			if file == "" {
				file = "f"
			}
			if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
				t.Errorf("%s wrote outside the project without asking", f.cmd)
			}
		})
	}
}
