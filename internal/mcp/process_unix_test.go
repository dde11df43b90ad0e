//go:build unix

package mcp

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
)

// syncBuffer is a bytes.Buffer safe for the log's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true // no /proc: trust kill
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

func TestLocalServerStoppedWithItsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	srv := localServer(t)
	// The server leaves a child behind in its process group.
	cmd := []string{"/bin/sh", "-c", `sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$0"; exec "$1"`, pidFile, srv.Command[0]}
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	m := start(t, map[string]config.MCP{"kids": {Type: "local", Command: cmd, Environment: srv.Environment}}, Options{Logger: log})
	if st := m.Status()["kids"]; st.State != StateConnected {
		t.Fatalf("status = %+v", st)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !alive(pid) {
		t.Fatal("the child is not running before Close")
	}
	m.Close()
	eventually(t, "the child to be gone", func() bool { return !alive(pid) })
	if got := logs.String(); !strings.Contains(got, "line=\"test server starting\"") || !strings.Contains(got, "server=kids") {
		t.Errorf("stderr not logged; log:\n%s", got)
	}
}
