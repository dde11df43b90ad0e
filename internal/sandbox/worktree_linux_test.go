//go:build linux

package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/codeloop/codeloop/internal/sandbox"
)

// linkedWorktree makes a repository main with one commit and a linked
// worktree of it, wt, the project.
func linkedWorktree(t *testing.T) (main, wt, outside, temp string) {
	t.Helper()
	root := t.TempDir()
	main, wt, outside, temp = filepath.Join(root, "main"), filepath.Join(root, "wt"), filepath.Join(root, "outside"), filepath.Join(root, "tmp")
	for _, d := range []string{main, outside, temp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(main, "a"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, main, "init", "-q")
	git(t, main, "add", "-A")
	git(t, main, "commit", "-qm", "one")
	git(t, main, "worktree", "add", "-q", "-b", "wt", wt)
	return main, wt, outside, temp
}

func TestProtectedPaths(t *testing.T) {
	gitEnv(t)
	main, wt, _, _ := linkedWorktree(t)
	gitDir := filepath.Join(main, ".git", "worktrees", "wt")
	got := sandbox.ProtectedPaths(wt)
	for _, want := range []string{
		filepath.Join(wt, ".git"), filepath.Join(wt, "codeloop.json"), filepath.Join(wt, ".codeloop"), filepath.Join(wt, ".mcp.json"),
		gitDir, filepath.Join(gitDir, "commondir"), filepath.Join(gitDir, "config.worktree"),
		filepath.Join(main, ".git"), filepath.Join(main, ".git", "config"), filepath.Join(main, ".git", "hooks"),
		filepath.Join(main, ".git", "info"), filepath.Join(main, ".git", "worktrees"),
	} {
		if !slices.Contains(got, want) {
			t.Errorf("ProtectedPaths(%s) lacks %s:\n%s", wt, want, strings.Join(got, "\n"))
		}
	}
	if !slices.IsSorted(got) {
		t.Errorf("not sorted: %q", got)
	}
	// The main worktree's own list names its .git and the linked
	// worktree's git directory, whose commondir decides where git looks.
	got = sandbox.ProtectedPaths(main)
	for _, want := range []string{filepath.Join(main, ".git"), filepath.Join(main, ".git", "config"), gitDir, filepath.Join(gitDir, "commondir")} {
		if !slices.Contains(got, want) {
			t.Errorf("ProtectedPaths(%s) lacks %s", main, want)
		}
	}
	for _, p := range got {
		if !strings.HasPrefix(p, main+string(filepath.Separator)) {
			t.Errorf("ProtectedPaths(%s) names %s, outside the project and its git directories", main, p)
		}
	}
}

// TestWorktreeConfinement confines commands in a linked worktree whose
// main repository is writable too: git works, and the main repository's
// config and hooks and the worktree's pointers stay as they are.
func TestWorktreeConfinement(t *testing.T) {
	sb, st := sandboxFor(t)
	if !st.MountNamespace {
		t.Skipf("the sandbox has no mount namespace here: %s", st.Reason)
	}
	gitEnv(t)
	tests := []struct {
		name   string
		script string // $M: main repository, $W: the worktree, the project
		ok     bool
		same   []string
	}{
		{name: "commit", script: "echo b > b && git add b && git commit -qm two && git branch side", ok: true},
		{name: "main config", script: "echo '[core]' >> $M/.git/config", same: []string{"$M/.git/config"}},
		{name: "main hooks", script: "echo x > $M/.git/hooks/pre-commit", same: []string{"$M/.git/hooks/pre-commit"}},
		{name: "git file", script: "echo gitdir: /tmp > $W/.git", same: []string{"$W/.git"}},
		{name: "commondir", script: "echo /tmp > $M/.git/worktrees/wt/commondir", same: []string{"$M/.git/worktrees/wt/commondir"}},
		{name: "rename worktree dir", script: "mv $M/.git/worktrees/wt $M/.git/worktrees/old", same: []string{"$M/.git/worktrees/wt/commondir"}},
		{name: "rename worktrees", script: "mv $M/.git/worktrees $M/.git/wt", same: []string{"$M/.git/worktrees/wt/commondir"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			main, wt, _, temp := linkedWorktree(t)
			expand := strings.NewReplacer("$M", main, "$W", wt).Replace
			before := map[string][]byte{}
			for _, f := range tt.same {
				before[f], _ = os.ReadFile(expand(f))
			}
			t.Setenv("M", main)
			t.Setenv("W", wt)
			p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: wt, TempDir: temp, Writable: []string{main}}
			// The command runs at all: it can write the worktree.
			out, _, err := run(t, sb, p, "touch $W/ran && "+tt.script)
			if tt.ok != (err == nil) {
				t.Fatalf("ok %v, got %v: %s", tt.ok, err, out)
			}
			if _, err := os.Stat(filepath.Join(wt, "ran")); err != nil {
				t.Fatalf("the command did not run: %v: %s", err, out)
			}
			for _, f := range tt.same {
				if after, _ := os.ReadFile(expand(f)); !bytes.Equal(before[f], after) {
					t.Errorf("%s changed: %q → %q", f, before[f], after)
				}
			}
			if got := git(t, wt, "status", "--porcelain", "--untracked-files=no"); tt.ok && got != "" {
				t.Errorf("git status in the worktree after the command: %q", got)
			}
		})
	}
}

// TestTerminal runs a confined command on a terminal: the read-only /dev
// must not stop it from writing its terminal, through its standard output
// or /dev/tty.
func TestTerminal(t *testing.T) {
	sb, _ := sandboxFor(t)
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pts.Close()

	tr := newTree(t, standIn)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: tr.project, TempDir: tr.temp}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "tty >/dev/null && echo via-stdout && echo via-devtty > /dev/tty")
	cmd.Dir = tr.project
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := sb.Wrap(ctx, cmd, p); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	var out bytes.Buffer
	buf := make([]byte, 1024)
	for {
		k, err := ptmx.Read(buf)
		out.Write(buf[:k])
		if err != nil {
			break // EIO once the command closed the terminal
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, want := range []string{"via-stdout", "via-devtty"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the terminal did not get %q: %q", want, out.String())
		}
	}
}
