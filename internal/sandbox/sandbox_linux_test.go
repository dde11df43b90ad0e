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
	"strings"
	"testing"

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

func newTree(t *testing.T) tree {
	t.Helper()
	root := t.TempDir()
	tr := tree{project: filepath.Join(root, "proj"), outside: filepath.Join(root, "outside"), temp: filepath.Join(root, "tmp")}
	for _, d := range []string{tr.project, tr.outside, tr.temp, filepath.Join(tr.project, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		filepath.Join(tr.project, ".git", "config"): "[core]\n",
		filepath.Join(tr.project, "a"):              "project file\n",
		filepath.Join(tr.outside, "victim"):         "keep me\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tr
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

// run runs script with bash under the policy and returns its output and
// exit error.
func run(t *testing.T, sb *sandbox.Sandbox, p sandbox.Policy, script string) (string, error) {
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
	err = cmd.Run()
	return out.String(), err
}

func TestConfinement(t *testing.T) {
	sb, st := sandboxFor(t)
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

	tests := []struct {
		name    string
		mode    sandbox.Mode
		network bool
		script  string // $P: project, $O: outside, $T: temp
		ok      bool
		exists  string // a file that must exist afterwards
		absent  string // a file that must not exist afterwards
		same    string // a file whose content must not change
		needs   string // a program the case needs
		mountNS bool   // needs read-only protected paths
	}{
		{name: "write inside", script: "echo x > $P/new", ok: true, exists: "$P/new"},
		{name: "write temp", script: "echo x > $T/new", ok: true, exists: "$T/new"},
		{name: "tmpdir is the temp dir", script: `[ "$TMPDIR" = "$T" ] && echo x > "$TMPDIR/t"`, ok: true, exists: "$T/t"},
		{name: "heredoc", script: "cat <<EOF > $P/h\nline\nEOF", ok: true, exists: "$P/h"},
		{name: "move inside", script: "mv $P/a $P/b", ok: true, exists: "$P/b"},
		{name: "dev null", script: "echo x > /dev/null", ok: true},
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
		{name: "read-only project", mode: sandbox.ModeReadOnly, script: "echo x > $P/new", absent: "$P/new"},
		{name: "read-only temp", mode: sandbox.ModeReadOnly, script: "echo x > $T/new", ok: true, exists: "$T/new"},
		{name: "tcp off", script: tcp},
		{name: "tcp on", network: true, script: tcp, ok: true},
		{name: "unix socket", script: `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('` + sock + `')"`, ok: true, needs: "python3"},
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
				t.Skipf("protected paths are not enforced here: %s", st.Reason)
			}
			tr := newTree(t)
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
			t.Setenv("P", tr.project)
			t.Setenv("O", tr.outside)
			t.Setenv("T", tr.temp)
			out, err := run(t, sb, p, tt.script)
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
				if _, err := os.Stat(expand(tt.absent)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("want %s absent, stat: %v", tt.absent, err)
				}
			}
			if tt.same != "" {
				after, _ := os.ReadFile(expand(tt.same))
				if !bytes.Equal(before, after) {
					t.Errorf("%s changed: %q → %q", tt.same, before, after)
				}
			}
		})
	}
}

// TestUnconfinedParent checks that confining a command leaves codeloop
// itself free to write anywhere, as it does to its database.
func TestUnconfinedParent(t *testing.T) {
	sb, _ := sandboxFor(t)
	tr := newTree(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: tr.project, TempDir: tr.temp}
	if out, err := run(t, sb, p, "echo x > $0/blocked 2>/dev/null; true"); err != nil {
		t.Fatalf("sandboxed command: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(tr.outside, "parent"), []byte("x"), 0o644); err != nil {
		t.Fatalf("codeloop's own write outside the project failed: %v", err)
	}
}

func TestPermissionDeniedMessage(t *testing.T) {
	sb, _ := sandboxFor(t)
	tr := newTree(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: tr.project, TempDir: tr.temp}
	out, _ := run(t, sb, p, "echo x > "+filepath.Join(tr.outside, "f"))
	if !strings.Contains(out, "Permission denied") {
		t.Fatalf("want EACCES from a write outside the project, got %q", out)
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
