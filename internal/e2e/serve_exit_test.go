package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stateFiles lists the server state files of the project's user.
func (p *project) stateFiles() []string {
	files, _ := filepath.Glob(filepath.Join(p.home, ".local", "state", "*", "server", "*.json"))
	return files
}

// TestServeStateRemovedOnExit stops codeloop serve in each way it can end
// short of SIGKILL, SIGINT, SIGTERM, SIGHUP and the loss of the reader of
// its output, and checks that it exits on its own (not killed by the
// signal) and that its state file, with the token, is gone.
func TestServeStateRemovedOnExit(t *testing.T) {
	stops := []struct {
		name string
		stop func(cmd *exec.Cmd, out *os.File) error
	}{
		{"SIGINT", func(cmd *exec.Cmd, _ *os.File) error { return cmd.Process.Signal(syscall.SIGINT) }},
		{"SIGTERM", func(cmd *exec.Cmd, _ *os.File) error { return cmd.Process.Signal(syscall.SIGTERM) }},
		{"SIGHUP", func(cmd *exec.Cmd, _ *os.File) error { return cmd.Process.Signal(syscall.SIGHUP) }},
		{"output reader gone", func(_ *exec.Cmd, out *os.File) error { return out.Close() }},
		{"output reader gone, then SIGPIPE", func(cmd *exec.Cmd, out *os.File) error {
			if err := out.Close(); err != nil {
				return err
			}
			return cmd.Process.Signal(syscall.SIGPIPE)
		}},
	}
	for _, tt := range stops {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, "", nil)
			cmd := p.command(context.Background(), "serve", "--port", "0")
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout = w
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			defer func() {
				select {
				case <-exited:
				default:
					_ = cmd.Process.Kill()
					<-exited
				}
			}()
			state := ""
			lines := bufio.NewScanner(r)
			for lines.Scan() {
				if path, ok := strings.CutPrefix(lines.Text(), "its token is in "); ok {
					state = path
					break
				}
			}
			if state == "" {
				r.Close()
				<-exited
				t.Fatalf("codeloop serve did not start: %s", stderr.String())
			}
			if _, err := os.Stat(state); err != nil {
				t.Fatalf("no state file while serving: %v", err)
			}
			if err := tt.stop(cmd, r); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(60 * time.Second):
				t.Fatalf("codeloop serve did not stop\n%s", stderr.String())
			}
			r.Close()
			if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
				t.Errorf("killed by %v\n%s", ws.Signal(), stderr.String())
			}
			if _, err := os.Stat(state); !os.IsNotExist(err) {
				t.Errorf("the state file is left: %v", err)
			}
		})
	}
}

// TestServePipedToHead runs codeloop serve | head -1 in a shell: the
// pipeline ends once head has the first line, and no state file is left.
func TestServePipedToHead(t *testing.T) {
	p := newProject(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", `"$0" serve --port 0 | head -1`, binary)
	cmd.Dir, cmd.Env = p.dir, p.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "codeloop server listening on http://127.0.0.1:") {
		t.Errorf("output %q", out)
	}
	if files := p.stateFiles(); len(files) != 0 {
		t.Errorf("state files left: %v", files)
	}
}
