package snapshot

import (
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
	if err := s.BeforeTool(ctx, cp, "bash"); err != nil {
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
}
