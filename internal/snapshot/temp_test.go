package snapshot

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestOpenRemovesOnlyDeadTemps leaves temporary files in the store as
// writes cut short do, and checks that opening it removes those of ended
// processes and old ones that name none, and keeps those of a process
// still writing (another codeloop sharing the store).
func TestOpenRemovesOnlyDeadTemps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dead, live := strconv.Itoa(ended.Process.Pid), strconv.Itoa(os.Getpid())
	old := time.Now().Add(-2 * staleTempAge)
	files := []struct {
		path    string
		aged    bool
		removed bool
	}{
		{"objects/ab/" + tmpPrefix + dead + "-123", false, true},
		{"checkpoints/ses_1/" + tmpPrefix + dead + "-9", false, true},
		{"objects/ab/" + tmpPrefix + live + "-5", true, false},
		{"objects/cd/" + tmpPrefix + "4567", false, false},
		{"objects/cd/" + tmpPrefix + "4568", true, true},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("part"), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.aged {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.path))
		if gone := os.IsNotExist(err); gone != f.removed {
			t.Errorf("%s: removed %v, want %v", f.path, gone, f.removed)
		}
	}
}
