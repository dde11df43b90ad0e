package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
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
	for _, tc := range []struct {
		tmux string
		want string // the sequence sent to the terminal
		says string
	}{
		{"", "\x1b]52;c;c29tZSB0ZXh0\x07", "with OSC 52, which cannot confirm it"},
		{"/tmp/tmux-0/default,1,0", "\x1bPtmux;\x1b\x1b]52;c;c29tZSB0ZXh0\x07\x1b\\", "through tmux"},
	} {
		m := testModelIn(t, "", 200, 24)
		m.opts.Getenv = func(k string) string {
			if k == "TMUX" {
				return tc.tmux
			}
			return ""
		}
		m.lastCopy = "some text"
		_, cmd := m.Update(copiedMsg{what: "the last answer", copyResult: r})
		if s := screen(m); !strings.Contains(s, tc.says) || strings.Contains(s, "copied the") {
			t.Errorf("TMUX=%q: the toast:\n%s", tc.tmux, s)
		}
		sent := ""
		if b, ok := cmd().(tea.BatchMsg); ok {
			for _, c := range b {
				if raw, ok := c().(tea.RawMsg); ok {
					sent += fmt.Sprint(raw.Msg)
				}
			}
		}
		if sent != tc.want {
			t.Errorf("TMUX=%q: sent %q to the terminal, want %q", tc.tmux, sent, tc.want)
		}
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

// TestMouseToggle: /mouse leaves the mouse to the terminal, so its own
// selection works, and hides the sidebar that would share the rows it
// selects; /mouse again takes the mouse back.
func TestMouseToggle(t *testing.T) {
	m := testModel(t, 200, 40)
	sidebarSession(m)
	if m.View().MouseMode != tea.MouseModeCellMotion || !m.sidebarShown() {
		t.Fatal("the view does not start with the mouse and the sidebar")
	}
	m.slash("mouse", "")
	if m.View().MouseMode != tea.MouseModeNone {
		t.Error("/mouse left the mouse captured")
	}
	if m.sidebarShown() || strings.Contains(screen(m), "Modified files") {
		t.Errorf("the sidebar still shares the rows the terminal selects:\n%s", screen(m))
	}
	m.slash("mouse", "")
	if m.View().MouseMode != tea.MouseModeCellMotion || !m.sidebarShown() {
		t.Error("/mouse did not take the mouse back")
	}
}
