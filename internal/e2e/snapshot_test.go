package e2e

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// snapshotScript writes and edits files with the built-in tools, then
// removes, moves, re-modes and creates files with bash.
const snapshotScript = `
step
call call_1 write {"filePath":"new.txt","content":"written by the agent\n"}
call call_2 edit {"filePath":"a.txt","oldString":"hello","newString":"goodbye"}
finish tool-calls
step
call call_3 bash {"command":"rm b.txt && mv c.sh d.sh && chmod 700 d.sh && mkdir -p gen && printf 'out' > gen/out.txt"}
finish tool-calls
step
text Done.
finish stop
`

// treeOf reads every file under dir but .git: content and mode by path.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = fmt.Sprintf("%v %q", info.Mode(), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func changedPaths(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestRunRevert runs steps that change files through every kind of tool,
// in a git repository and in a plain directory, then reverts the session
// with `codeloop session revert` (files restored exactly, .git untouched),
// unreverts it (files back exactly), refuses to overwrite a file the user
// changed, and shows the changes with `session diff`.
func TestRunRevert(t *testing.T) {
	for _, git := range []bool{true, false} {
		t.Run(map[bool]string{true: "git", false: "plain"}[git], func(t *testing.T) {
			p := newProject(t, snapshotScript, map[string]string{"a.txt": "hello world\n", "b.txt": "bee\n", "c.sh": "#!/bin/sh\n"})
			if err := os.Chmod(filepath.Join(p.dir, "c.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			if !git {
				if err := os.RemoveAll(filepath.Join(p.dir, ".git")); err != nil {
					t.Fatal(err)
				}
			}
			gitDir := filepath.Join(p.dir, ".git")
			var gitBefore map[string]string
			if git {
				gitBefore = treeOf(t, gitDir)
			}
			start := treeOf(t, p.dir)
			out, stderr, code := p.run("run", "--format", "json", "--auto", "change the files")
			if code != 0 {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			if !strings.Contains(out, `"type":"patch"`) {
				t.Errorf("run --format json printed no patch part:\n%s", out)
			}
			end := treeOf(t, p.dir)
			if got := changedPaths(start, end); !slices.Equal(got, []string{"a.txt", "b.txt", "c.sh", "d.sh", "gen/out.txt", "new.txt"}) {
				t.Fatalf("the run changed %v", got)
			}
			exp := p.exportSession("")
			sid, first := exp.Info.ID, exp.Messages[0].Info.ID

			stat, stderr, code := p.run("session", "diff", "--format", "stat")
			if code != 0 {
				t.Fatalf("session diff: exit %d\n%s", code, stderr)
			}
			for _, want := range []string{"modified\t+1 -1\ta.txt", "deleted\t+0 -1\tb.txt", "added\t+1 -0\tnew.txt", "added\t+1 -0\tgen/out.txt", "added\t+1 -0\td.sh"} {
				if !strings.Contains(stat, want) {
					t.Errorf("session diff --format stat lacks %q:\n%s", want, stat)
				}
			}

			out, stderr, code = p.run("session", "revert", sid, first)
			if code != 0 {
				t.Fatalf("session revert: exit %d\n%s%s", code, out, stderr)
			}
			if d := changedPaths(start, treeOf(t, p.dir)); len(d) > 0 {
				t.Errorf("after the revert these differ from the start: %v\n%s", d, out)
			}
			out, stderr, code = p.run("session", "unrevert", sid)
			if code != 0 {
				t.Fatalf("session unrevert: exit %d\n%s%s", code, out, stderr)
			}
			if d := changedPaths(end, treeOf(t, p.dir)); len(d) > 0 {
				t.Errorf("after the unrevert these differ from the end of the run: %v", d)
			}

			// A file the user changed since is reported, and nothing is
			// overwritten.
			if err := os.WriteFile(filepath.Join(p.dir, "new.txt"), []byte("mine now\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			edited := treeOf(t, p.dir)
			_, stderr, code = p.run("session", "revert", sid, first)
			if code == 0 || !strings.Contains(stderr, "new.txt") || !strings.Contains(stderr, "--force") {
				t.Errorf("revert over a user's edit: exit %d, stderr %q, want a conflict naming new.txt and --force", code, stderr)
			}
			if d := changedPaths(edited, treeOf(t, p.dir)); len(d) > 0 {
				t.Errorf("a refused revert changed %v", d)
			}
			if git {
				if d := changedPaths(gitBefore, treeOf(t, gitDir)); len(d) > 0 {
					t.Errorf(".git changed: %v", d)
				}
			}
			out, stderr, code = p.run("debug", "snapshot", "verify")
			if code != 0 || !strings.Contains(out, "verify\tok") {
				t.Errorf("debug snapshot verify: exit %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestRevertPastTextTurn runs a turn that writes a file and one that only
// answers, then reverts the session twice with `codeloop session revert`:
// to the answer's message (no file to restore), then to the first turn,
// which must restore the file; `session unrevert` brings it back.
func TestRevertPastTextTurn(t *testing.T) {
	p := newProject(t, `
step
call call_1 write {"filePath":"new.txt","content":"written by the agent\n"}
finish tool-calls
step
text Written.
finish stop
step
text Nothing to change.
finish stop
`, map[string]string{"a.txt": "hello\n"})
	start := treeOf(t, p.dir)
	if _, stderr, code := p.run("run", "--auto", "write new.txt"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := p.run("run", "-c", "--auto", "just answer"); code != 0 {
		t.Fatalf("run -c: exit %d\n%s", code, stderr)
	}
	end := treeOf(t, p.dir)
	exp := p.exportSession("")
	var users []string
	for _, m := range exp.Messages {
		if m.Info.Role == "user" {
			users = append(users, m.Info.ID)
		}
	}
	if len(users) != 2 {
		t.Fatalf("the session has %d user messages, want 2", len(users))
	}
	sid := exp.Info.ID
	steps := []struct {
		args []string
		want map[string]string
	}{
		{[]string{"session", "revert", sid, users[1]}, end},
		{[]string{"session", "revert", sid, users[0]}, start},
		{[]string{"session", "unrevert", sid}, end},
	}
	for _, st := range steps {
		out, stderr, code := p.run(st.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", strings.Join(st.args, " "), code, out, stderr)
		}
		if d := changedPaths(st.want, treeOf(t, p.dir)); len(d) > 0 {
			t.Errorf("after %s these differ: %v", strings.Join(st.args, " "), d)
		}
	}
}

// TestSnapshotKill kills `codeloop run` with SIGKILL at random moments
// while its steps write snapshots (a bash step creating many files, tool
// writes), 20 times. After each kill, the next start removes the temporary
// files left behind, `debug snapshot verify` passes, and the session
// resumes with `run -c`.
func TestSnapshotKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills codeloop 20 times; run without -short")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	block := `
step
call call_1 bash {"command":"for i in $(seq 1 300); do head -c 30000 /dev/urandom > data$i.bin; done"}
finish tool-calls
step
call call_2 write {"filePath":"big.txt","content":"` + strings.Repeat("line of text ", 20000) + `"}
finish tool-calls
step
text Done.
finish stop
`
	p := newProject(t, strings.Repeat(block, 25), map[string]string{"seed.txt": "x\n"})
	snapDir := filepath.Join(p.home, ".local/share/codeloop/snapshot")
	killed := 0
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := p.command(ctx, "run", "--auto", "write data")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(50+rng.IntN(400)) * time.Millisecond) // not a wait: the kill moment is random on purpose
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		_ = cmd.Wait()
		cancel()
		out, stderr, code := p.run("debug", "snapshot", "verify")
		if code != 0 || !strings.Contains(out, "verify\tok") {
			t.Fatalf("kill %d: debug snapshot verify: exit %d\n%s%s", i, code, out, stderr)
		}
		var temps []string
		_ = filepath.WalkDir(snapDir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
				temps = append(temps, path)
			}
			return nil
		})
		if len(temps) > 0 {
			t.Fatalf("kill %d: temporary files left after a start: %v", i, temps)
		}
	}
	if _, stderr, code := p.run("run", "-c", "--auto", "go on"); code != 0 {
		t.Fatalf("run -c after the kills: exit %d\n%s", code, stderr)
	}
	t.Logf("%d kills, store verified after each", killed)
}

// TestRevertKilledStep kills `codeloop run` inside a step whose write and
// edit calls have changed files while its bash call still runs, then
// reverts the session with `codeloop session revert`: the files are as
// before the run, exactly.
func TestRevertKilledStep(t *testing.T) {
	p := newProject(t, `
step
call call_1 write {"filePath":"new.txt","content":"written by the agent\n"}
call call_2 edit {"filePath":"a.txt","oldString":"hello","newString":"goodbye"}
call call_3 bash {"command":"touch started; sleep 60"}
finish tool-calls
step
text Never reached.
finish stop
`, map[string]string{"a.txt": "hello world\n"})
	start := treeOf(t, p.dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := p.command(ctx, "run", "--auto", "change the files")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once the write, the edit and the bash call have all started.
	waitfor.Until(t, "the step's tools to all run", func() bool {
		_, errStarted := os.Stat(filepath.Join(p.dir, "started"))
		a, _ := os.ReadFile(filepath.Join(p.dir, "a.txt"))
		n, _ := os.ReadFile(filepath.Join(p.dir, "new.txt"))
		return errStarted == nil && string(a) == "goodbye world\n" && string(n) == "written by the agent\n"
	})
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if err := os.Remove(filepath.Join(p.dir, "started")); err != nil {
		t.Fatal(err)
	}

	exp := p.exportSession("")
	out, stderr, code := p.run("session", "revert", exp.Info.ID, exp.Messages[0].Info.ID)
	if code != 0 {
		t.Fatalf("session revert: exit %d\n%s%s", code, out, stderr)
	}
	if d := changedPaths(start, treeOf(t, p.dir)); len(d) > 0 {
		t.Errorf("after the revert these differ from the start: %v", d)
	}
}
