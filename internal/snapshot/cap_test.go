package snapshot

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStoreStaysUnderCap scans a project holding far more untracked data
// than the store may keep (60 MiB of incompressible files against a 16 MiB
// cap), a directory that gains 6,000 entries at once and a file over 10
// MiB. The store stays under its cap and every path it could not keep is
// reported.
func TestStoreStaysUnderCap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 80 MB")
	}
	dir := t.TempDir()
	buf := make([]byte, 64<<10)
	for i := range 960 { // 60 MiB
		d := filepath.Join(dir, "data", fmt.Sprintf("set%02d", i%30))
		os.MkdirAll(d, 0o755)
		rand.Read(buf)
		os.WriteFile(filepath.Join(d, fmt.Sprintf("part%04d.bin", i)), buf, 0o644)
	}
	big := make([]byte, 11<<20)
	os.WriteFile(filepath.Join(dir, "model.bin"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	const maxSize = 16 << 20
	s, err := Open(Options{Dir: t.TempDir(), MaxSize: maxSize})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	cp, _ := s.Begin(ctx, dir, "ses_cap", "msg_1")
	if err := s.BeforeTool(ctx, cp); err != nil {
		t.Fatal(err)
	}
	// The command unpacks a data set and rewrites the large file.
	os.MkdirAll(filepath.Join(dir, "unpacked"), 0o755)
	for i := range 6000 {
		os.WriteFile(filepath.Join(dir, "unpacked", fmt.Sprintf("x%05d", i)), []byte{byte(i)}, 0o644)
	}
	big[0] = 1
	os.WriteFile(filepath.Join(dir, "model.bin"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // changed\n"), 0o644)
	// A data file whose content the full store could not keep changes too.
	last := filepath.Join(dir, "data", "set29", "part0959.bin")
	changed := slices.Repeat([]byte{7}, 64<<10)
	os.WriteFile(last, changed, 0o644)
	patch, err := s.Finish(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	if size := s.Size(); size > maxSize {
		t.Errorf("the store holds %d bytes, over its cap of %d", size, maxSize)
	}
	var reasons []string
	for _, sk := range patch.Skipped {
		reasons = append(reasons, sk.Path+": "+sk.Reason)
	}
	for _, want := range []string{"model.bin: changed, but larger than 10 MiB", "unpacked/: more than 5000 new entries", "the snapshot store is full"} {
		if !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, want) }) {
			t.Errorf("no skip like %q among %d: %.5q", want, len(reasons), reasons)
		}
	}
	if !slices.Contains(patch.Files, filepath.Join(dir, "main.go")) {
		t.Errorf("main.go's change was lost: %v", patch.Files)
	}
	t.Logf("store %d bytes (cap %d), %d paths reported skipped", s.Size(), maxSize, len(patch.Skipped))

	// Reverting the step restores main.go and leaves the data file it
	// could not keep alone: a revert never deletes or rewrites a file it
	// knows only by its stat.
	if _, err := s.Revert(ctx, "ses_cap", []string{cp}, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(b) != "package main\n" {
		t.Errorf("main.go = %q after the revert", b)
	}
	if b, err := os.ReadFile(last); err != nil || !bytes.Equal(b, changed) {
		t.Errorf("the unkept data file was touched by the revert: %d bytes, %v", len(b), err)
	}
}
