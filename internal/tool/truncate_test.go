package tool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func numbered(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	return strings.Join(lines, "\n")
}

func TestTruncatorOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		text        string
		limits      Limits
		tail        bool
		delegate    bool
		wantCut     bool
		wantKept    []string // substrings of the kept part
		wantMissing []string
		wantMarker  string
	}{
		{name: "within limits", text: numbered(10), limits: Limits{MaxLines: 10, MaxBytes: 1000}},
		{name: "lines, head", text: numbered(30), limits: Limits{MaxLines: 10, MaxBytes: 10000}, wantCut: true,
			wantKept: []string{"line 1\n", "line 10\n"}, wantMissing: []string{"line 11"}, wantMarker: "...20 lines truncated..."},
		{name: "lines, tail", text: numbered(30), limits: Limits{MaxLines: 10, MaxBytes: 10000}, tail: true, wantCut: true,
			wantKept: []string{"line 21\n", "line 30"}, wantMissing: []string{"line 20\n"}, wantMarker: "...20 lines truncated..."},
		{name: "bytes, head", text: numbered(30), limits: Limits{MaxLines: 1000, MaxBytes: 20}, wantCut: true,
			wantKept: []string{"line 1\nline 2\n"}, wantMissing: []string{"line 4"}, wantMarker: "bytes truncated..."},
		{name: "delegate hint", text: numbered(30), limits: Limits{MaxLines: 5}, delegate: true, wantCut: true,
			wantKept: []string{"explore agent (task tool)"}},
		{name: "default limits, bytes", text: strings.Repeat("x", DefaultMaxBytes+1), wantCut: true, wantKept: []string{strings.Repeat("x", DefaultMaxBytes) + "\n"}, wantMarker: "...1 bytes truncated..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &Truncator{Dir: t.TempDir(), Limits: tt.limits}
			out, path := tr.Output(tt.text, tt.delegate, tt.tail)
			if !tt.wantCut {
				if out != tt.text || path != "" {
					t.Fatalf("cut an output within the limits: %q, %q", out, path)
				}
				return
			}
			if path == "" || readFile(t, path) != tt.text {
				t.Fatalf("full text not saved at %q", path)
			}
			if !strings.HasPrefix(filepath.Base(path), "tool_") || filepath.Dir(path) != tr.Dir {
				t.Errorf("saved at %s, want %s/tool_*", path, tr.Dir)
			}
			if !strings.Contains(out, path) {
				t.Errorf("hint does not name the saved file:\n%s", out)
			}
			for _, s := range tt.wantKept {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.wantMissing {
				if strings.Contains(out, s) {
					t.Errorf("output keeps %q:\n%s", s, out)
				}
			}
			if !strings.Contains(out, tt.wantMarker) {
				t.Errorf("output lacks marker %q:\n%s", tt.wantMarker, out)
			}
			if tt.tail && !strings.HasPrefix(out, "...") {
				t.Errorf("tail output should start with the marker:\n%s", out)
			}
			if !tt.delegate && !strings.Contains(out, "offset/limit") {
				t.Errorf("hint does not suggest read with offset/limit:\n%s", out)
			}
		})
	}
}

func TestSweepRemovesOldOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	files := map[string]time.Duration{
		"tool_old":    8 * 24 * time.Hour,
		"tool_recent": time.Hour,
		"other_old":   30 * 24 * time.Hour, // not ours
	}
	for name, age := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := Sweep(dir, OutputRetention, now)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 removed", n, err)
	}
	for name, keep := range map[string]bool{"tool_old": false, "tool_recent": true, "other_old": true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != keep {
			t.Errorf("%s kept = %v, want %v", name, err == nil, keep)
		}
	}
	if n, err := Sweep(filepath.Join(dir, "missing"), OutputRetention, now); n != 0 || err != nil {
		t.Errorf("Sweep of a missing dir = %d, %v", n, err)
	}
}

func TestCleanupStopsWithContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		Cleanup(ctx, t.TempDir(), OutputRetention)
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Cleanup did not stop when its context ended")
	}
}
