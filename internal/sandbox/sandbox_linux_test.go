//go:build linux

package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/codeloop/codeloop/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Main(os.Args)
	os.Exit(m.Run())
}

// tree is a project, a directory outside it and a temporary directory.
type tree struct {
	project, outside, temp string
}

// The kinds of .git a tree's project has.
const (
	standIn = iota // a .git directory with hooks, info and config
	repo           // a real repository with one commit
	noGit          // none
)

// newTree makes a tree whose project has configuration files and the kind
// of .git asked for.
func newTree(t *testing.T, kind int) tree {
	t.Helper()
	root := t.TempDir()
	tr := tree{project: filepath.Join(root, "proj"), outside: filepath.Join(root, "outside"), temp: filepath.Join(root, "tmp")}
	for _, d := range []string{tr.project, tr.outside, tr.temp, filepath.Join(tr.project, "claude-real")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(tr.project, "a"):                            "project file\n",
		filepath.Join(tr.project, "codeloop.json"):                `{"sandbox":{"mode":"workspace-write"}}`,
		filepath.Join(tr.project, "opencode.json"):                `{}`,
		filepath.Join(tr.project, "claude-real", "settings.json"): `{}`,
		filepath.Join(tr.outside, "victim"):                       "keep me\n",
	}
	if kind == standIn {
		for _, d := range []string{"hooks", "info"} {
			if err := os.MkdirAll(filepath.Join(tr.project, ".git", d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		files[filepath.Join(tr.project, ".git", "config")] = "[core]\n"
		files[filepath.Join(tr.project, ".git", "info", "attributes")] = "*.bin binary\n"
	}
	for name, body := range files {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("claude-real", filepath.Join(tr.project, ".claude")); err != nil {
		t.Fatal(err)
	}
	if kind == repo {
		git(t, tr.project, "init", "-q")
		git(t, tr.project, "add", "-A")
		git(t, tr.project, "commit", "-qm", "one")
	}
	return tr
}

// git runs git in dir, unconfined, as the user would.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitEnv makes git work the same for root and nobody: no user or system
// configuration, a fixed identity.
func gitEnv(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "Test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "test@example.com")
	}
}

func sandboxFor(t *testing.T) (*sandbox.Sandbox, sandbox.Status) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb := sandbox.New(exe)
	st := sb.Status(context.Background())
	if !st.Available {
		t.Skipf("sandbox unavailable on this kernel: %s", st.Reason)
	}
	return sb, st
}

// run runs script with bash under the policy, as codeloop does: the guard
// recorded before, restored after. It returns the output, the protected
// paths the guard restored and the exit error.
func run(t *testing.T, sb *sandbox.Sandbox, p sandbox.Policy, script string) (string, []string, error) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	cmd := exec.Command(bash, "-c", script)
	cmd.Dir = p.Project
	if err := sb.Wrap(context.Background(), cmd, p); err != nil {
		t.Fatalf("wrap: %v", err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	guard := p.Guard()
	err = cmd.Run()
	restored, rerr := guard.Restore()
	if rerr != nil {
		t.Errorf("restoring the protected paths: %v", rerr)
	}
	return out.String(), restored, err
}

// meta is what chmod, chown, touch and setfattr change of a file.
type meta struct {
	mode     os.FileMode
	uid, gid uint32
	mtime    int64
	xattrs   string
}

func metaOf(t *testing.T, path string) meta {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := unix.Llistxattr(path, buf)
	if err != nil && !errors.Is(err, unix.ENOTSUP) {
		t.Fatal(err)
	}
	return meta{mode: os.FileMode(st.Mode), uid: st.Uid, gid: st.Gid, mtime: st.Mtim.Nano(), xattrs: string(buf[:max(n, 0)])}
}

func TestConfinement(t *testing.T) {
	sb, st := sandboxFor(t)
	gitEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	sockDir := t.TempDir()
	sock := filepath.Join(sockDir, "s")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	go func() {
		for {
			c, err := uln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	tcp := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port)
	plant := `printf '#!/bin/sh\ntouch $O/marker\n' > $P/.git/hooks/pre-commit && chmod +x $P/.git/hooks/pre-commit`
	copyGit := "mv $P/.git $P/.git.bak; cp -a $P/.git.bak $P/.git && "

	tests := []struct {
		name     string
		mode     sandbox.Mode
		network  bool
		git      int    // the kind of .git the project has
		script   string // $P: project, $O: outside, $T: temp
		ok       bool
		exists   string // a file that must exist afterwards
		absent   string // a file that must not exist afterwards
		same     string // a file whose content must not change
		meta     string // a file whose mode, owner, times and extended attributes must not change
		restored string // the protected path the guard must undo, relative to $P
		check    func(t *testing.T, tr tree)
		needs    string // a program the case needs
		mountNS  bool   // needs the sandbox's mount namespace
	}{
		{name: "write inside", script: "echo x > $P/new", ok: true, exists: "$P/new"},
		{name: "write temp", script: "echo x > $T/new", ok: true, exists: "$T/new"},
		{name: "tmpdir is the temp dir", script: `[ "$TMPDIR" = "$T" ] && echo x > "$TMPDIR/t"`, ok: true, exists: "$T/t"},
		{name: "heredoc", script: "cat <<EOF > $P/h\nline\nEOF", ok: true, exists: "$P/h"},
		{name: "move inside", script: "mv $P/a $P/b", ok: true, exists: "$P/b"},
		{name: "relative write", script: "echo x > new && mkdir -p d/e && echo y > d/e/f", ok: true, exists: "$P/d/e/f"},
		{name: "dev null", script: "echo x > /dev/null", ok: true},
		{name: "dev zero and urandom", script: "head -c 4 /dev/zero > /dev/null && head -c 4 /dev/urandom > /dev/null", ok: true},
		{name: "redirect outside", script: "echo x > $O/new", absent: "$O/new"},
		{name: "append outside", script: "echo x >> $O/victim", same: "$O/victim"},
		{name: "remove outside", script: "rm -f $O/victim", same: "$O/victim"},
		{name: "copy outside", script: "cp $P/a $O/copy", absent: "$O/copy"},
		{name: "move out", script: "mv $P/a $O/moved", absent: "$O/moved", exists: "$P/a"},
		{name: "find delete", script: "find $O -name victim -delete", same: "$O/victim"},
		{name: "background child", script: "(sleep 0.1; echo x > $O/bg) & wait $!", absent: "$O/bg"},
		{name: "python", script: `python3 -c "open('$O/py','w').write('x')"`, absent: "$O/py", needs: "python3"},
		{name: "perl", script: `perl -e 'open(my $f, ">", "$ENV{O}/pl") or die "$!"'`, absent: "$O/pl", needs: "perl"},
		{name: "git hooks", script: "echo x > $P/.git/hooks/pre-commit", absent: "$P/.git/hooks/pre-commit", mountNS: true},
		{name: "git config", script: "echo x >> $P/.git/config", same: "$P/.git/config", mountNS: true},
		{name: "rename git dir", script: "mv $P/.git $P/.git.bak", exists: "$P/.git/config", absent: "$P/.git.bak", mountNS: true},
		{name: "plant hook in a copy of git dir", script: copyGit + plant, absent: "$P/.git/hooks/pre-commit", mountNS: true},
		{name: "git config in a copy of git dir", script: copyGit + "printf '[core]\\n\\thooksPath = /tmp\\n' >> $P/.git/config", same: "$P/.git/config", mountNS: true},
		{name: "remove git dir", script: "rm -rf $P/.git", exists: "$P/.git/info/attributes", mountNS: true},
		{name: "git info", script: "echo '* filter=x' >> $P/.git/info/attributes", same: "$P/.git/info/attributes", mountNS: true},
		{name: "git commondir", script: "echo $O > $P/.git/commondir", ok: true, absent: "$P/.git/commondir", restored: ".git/commondir"},
		{name: "codeloop config", script: `printf '{"sandbox":{"mode":"off"}}' > $P/codeloop.json`, same: "$P/codeloop.json", mountNS: true},
		{name: "opencode config", script: `echo '{"permission":"allow"}' > $P/opencode.json`, same: "$P/opencode.json", mountNS: true},
		{name: "remove codeloop config", script: `rm -f $P/codeloop.json`, exists: "$P/codeloop.json", mountNS: true},
		{name: "create codeloop dir", script: "mkdir -p $P/.codeloop/tools && echo x > $P/.codeloop/tools/x", ok: true, absent: "$P/.codeloop", restored: ".codeloop"},
		{name: "create mcp config", script: `echo '{"mcpServers":{}}' > $P/.mcp.json`, ok: true, absent: "$P/.mcp.json", restored: ".mcp.json"},
		{name: "write through a linked config dir", script: "echo x > $P/.claude/settings.json", same: "$P/claude-real/settings.json", mountNS: true},
		{name: "replace a linked config dir", script: "rm $P/.claude && mkdir $P/.claude && echo x > $P/.claude/settings.json", ok: true,
			restored: ".claude", check: func(t *testing.T, tr tree) {
				if target, err := os.Readlink(filepath.Join(tr.project, ".claude")); err != nil || target != "claude-real" {
					t.Errorf(".claude is not the link it was: %q, %v", target, err)
				}
			}},
		{name: "chmod outside", script: "chmod 777 $O/victim", meta: "$O/victim", mountNS: true},
		{name: "chown outside", script: "chown 65534:65534 $O/victim", meta: "$O/victim", mountNS: true},
		{name: "utimes outside", script: "touch -d 2001-02-03 $O/victim", meta: "$O/victim", mountNS: true},
		{name: "setxattr outside", script: "setfattr -n user.codeloop -v x $O/victim", meta: "$O/victim", needs: "setfattr", mountNS: true},
		{name: "git commit", git: repo, script: "echo b > b && git add b && git commit -qm two && git log --oneline | wc -l | grep -qx 2", ok: true,
			check: func(t *testing.T, tr tree) {
				if got := git(t, tr.project, "log", "--format=%s"); got != "two\none\n" {
					t.Errorf("git log after the commit: %q", got)
				}
			}},
		{name: "git branch", git: repo, script: "git branch b2 && git pack-refs --all && git branch b3 && git branch -d -q b2", ok: true,
			check: func(t *testing.T, tr tree) {
				if got := git(t, tr.project, "branch", "--format=%(refname:short)"); !strings.Contains(got, "b3") || strings.Contains(got, "b2") {
					t.Errorf("branches: %q", got)
				}
			}},
		{name: "git checkout -b", git: repo, script: "git checkout -qb topic && git reset -q --soft HEAD && test -f .git/ORIG_HEAD", ok: true,
			check: func(t *testing.T, tr tree) {
				if got := strings.TrimSpace(git(t, tr.project, "rev-parse", "--abbrev-ref", "HEAD")); got != "topic" {
					t.Errorf("HEAD is %q, want topic", got)
				}
			}},
		{name: "git stash", git: repo, script: "echo changed > a && git stash -q && grep -qx 'project file' a && git stash list | grep -q stash", ok: true,
			check: func(t *testing.T, tr tree) {
				if got := git(t, tr.project, "stash", "list"); !strings.Contains(got, "stash@{0}") {
					t.Errorf("stash list: %q", got)
				}
			}},
		{name: "git commit in a real repository keeps hooks out", git: repo, script: copyGit + plant, absent: "$P/.git/hooks/pre-commit", mountNS: true,
			check: func(t *testing.T, tr tree) {
				git(t, tr.project, "commit", "-q", "--allow-empty", "-m", "by the user")
				if _, err := os.Stat(filepath.Join(tr.outside, "marker")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a hook planted by the command ran at the user's commit: %v", err)
				}
			}},
		{name: "git init where there is none", git: noGit, script: "git init -q && git add -A && git commit -qm x", ok: true, absent: "$P/.git", restored: ".git"},
		{name: "read-only project", mode: sandbox.ModeReadOnly, script: "echo x > $P/new", absent: "$P/new"},
		{name: "read-only temp", mode: sandbox.ModeReadOnly, script: "echo x > $T/new", ok: true, exists: "$T/new"},
		{name: "tcp off", script: tcp},
		{name: "tcp on", network: true, script: tcp, ok: true},
		{name: "unix socket", script: `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('` + sock + `')"`, ok: true, needs: "python3"},
		{name: "enter a mount namespace", script: "nsenter --mount=/proc/self/ns/mnt true", needs: "nsenter"},
		{name: "signal codeloop", script: fmt.Sprintf("kill -0 %d", os.Getpid())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs != "" {
				if _, err := exec.LookPath(tt.needs); err != nil {
					t.Skipf("%s is not installed", tt.needs)
				}
			}
			if tt.mountNS && !st.MountNamespace {
				t.Skipf("the sandbox has no mount namespace here: %s", st.Reason)
			}
			tr := newTree(t, tt.git)
			expand := strings.NewReplacer("$P", tr.project, "$O", tr.outside, "$T", tr.temp).Replace
			mode := tt.mode
			if mode == "" {
				mode = sandbox.ModeWorkspaceWrite
			}
			p := sandbox.Policy{Mode: mode, Network: tt.network, Project: tr.project, TempDir: tr.temp}
			var before []byte
			if tt.same != "" {
				before, _ = os.ReadFile(expand(tt.same))
			}
			var metaBefore meta
			if tt.meta != "" {
				metaBefore = metaOf(t, expand(tt.meta))
			}
			t.Setenv("P", tr.project)
			t.Setenv("O", tr.outside)
			t.Setenv("T", tr.temp)
			out, restored, err := run(t, sb, p, tt.script)
			if tt.ok && err != nil {
				t.Fatalf("want success, got %v: %s", err, out)
			}
			if !tt.ok && err == nil {
				t.Fatalf("want failure, the command succeeded: %s", out)
			}
			if tt.exists != "" {
				if _, err := os.Stat(expand(tt.exists)); err != nil {
					t.Errorf("want %s to exist: %v", tt.exists, err)
				}
			}
			if tt.absent != "" {
				if _, err := os.Lstat(expand(tt.absent)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("want %s absent, stat: %v", tt.absent, err)
				}
			}
			if tt.same != "" {
				after, _ := os.ReadFile(expand(tt.same))
				if !bytes.Equal(before, after) {
					t.Errorf("%s changed: %q → %q", tt.same, before, after)
				}
			}
			if tt.meta != "" {
				if after := metaOf(t, expand(tt.meta)); after != metaBefore {
					t.Errorf("%s changed: %+v → %+v", tt.meta, metaBefore, after)
				}
			}
			var want []string
			if tt.restored != "" {
				want = []string{filepath.Join(tr.project, tt.restored)}
			}
			if !slices.Equal(restored, want) {
				t.Errorf("restored %q, want %q", restored, want)
			}
			if tt.check != nil {
				tt.check(t, tr)
			}
		})
	}
}

// TestUnconfinedParent checks that confining a command leaves codeloop
// itself free to write anywhere, as it does to its database.
func TestUnconfinedParent(t *testing.T) {
	sb, _ := sandboxFor(t)
	tr := newTree(t, standIn)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: tr.project, TempDir: tr.temp}
	if out, _, err := run(t, sb, p, "echo x > $0/blocked 2>/dev/null; true"); err != nil {
		t.Fatalf("sandboxed command: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(tr.outside, "parent"), []byte("x"), 0o644); err != nil {
		t.Fatalf("codeloop's own write outside the project failed: %v", err)
	}
}

func TestPermissionDeniedMessage(t *testing.T) {
	sb, st := sandboxFor(t)
	tr := newTree(t, standIn)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: tr.project, TempDir: tr.temp}
	out, _, _ := run(t, sb, p, "echo x > "+filepath.Join(tr.outside, "f"))
	want := "Permission denied" // Landlock
	if st.MountNamespace {
		want = "Read-only file system" // the read-only mount, checked first
	}
	if !strings.Contains(out, want) {
		t.Fatalf("want %q from a write outside the project, got %q", want, out)
	}
}

func TestUnavailable(t *testing.T) {
	sb := sandbox.New(filepath.Join(t.TempDir(), "missing-codeloop"))
	cmd := exec.Command("/bin/sh", "-c", "true")
	err := sb.Wrap(context.Background(), cmd, sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: "/p", TempDir: "/t"})
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("want ErrUnavailable from a helper that cannot run, got %v", err)
	}
	if cmd.Path != "/bin/sh" {
		t.Fatalf("an unavailable sandbox rewrote the command to %s", cmd.Path)
	}
	off := exec.Command("/bin/sh", "-c", "true")
	if err := sb.Wrap(context.Background(), off, sandbox.Policy{Mode: sandbox.ModeOff}); err != nil || off.Path != "/bin/sh" {
		t.Fatalf("mode off: err %v, path %s", err, off.Path)
	}
}

func BenchmarkCommand(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	sb := sandbox.New(exe)
	if st := sb.Status(context.Background()); !st.Available {
		b.Skipf("sandbox unavailable: %s", st.Reason)
	}
	dir := b.TempDir()
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: dir, TempDir: dir}
	for _, confined := range []bool{false, true} {
		name := "unconfined"
		if confined {
			name = "sandboxed"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/bin/sh", "-c", "true")
				if confined {
					if err := sb.Wrap(context.Background(), cmd, p); err != nil {
						b.Fatal(err)
					}
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
