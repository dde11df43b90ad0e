package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCopyNoWay: with no clipboard tool on the PATH and outside tmux the
// copy fails and says why; nothing claims it was copied.
func TestCopyNoWay(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	env := func(string) string { return "" }
	r := copyText(context.Background(), "some text", env)
	if r.err == nil || !strings.Contains(r.err.Error(), "no clipboard tool") {
		t.Fatalf("copy: via %q, error %v", r.via, r.err)
	}
	m := testModel(t, 100, 24)
	m.lastCopy = "some text"
	m.Update(copiedMsg{what: "the last answer", copyResult: r})
	if s := screen(m); !strings.Contains(s, "copy failed") || strings.Contains(s, "copied the") {
		t.Errorf("the toast:\n%s", s)
	}
}

// TestCopyTmux: inside tmux the text lands in tmux's buffer.
func TestCopyTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	sock := fmt.Sprintf("codeloop-copy-%d-%d", os.Getpid(), time.Now().UnixNano())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tmux("new-session", "-d", "-s", "x", "sleep 60")
	defer exec.Command("tmux", "-L", sock, "kill-server").Run()
	t.Setenv("TMUX", tmux("display-message", "-p", "#{socket_path}")+",0,0")
	env := func(k string) string { return os.Getenv(k) }
	text := "line one\nthe answer — with ünïcode\n"
	r := copyText(context.Background(), text, env)
	if r.err != nil || r.via != "the tmux buffer" {
		t.Fatalf("copy: via %q, error %v", r.via, r.err)
	}
	if got, _ := exec.Command("tmux", "-L", sock, "show-buffer").Output(); string(got) != text {
		t.Errorf("the tmux buffer holds %q", got)
	}
}
