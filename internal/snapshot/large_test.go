package snapshot

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLargeProject builds a project of 200,000 files and 3 GB of
// incompressible data (set CODELOOP_SNAPSHOT_LARGE=1; it needs about 7 GB
// of disk and a few minutes), runs steps with a shell tool against the
// default 1 GiB store, and reports the store's size, the skipped paths and
// the time of each of ten steps.
func TestLargeProject(t *testing.T) {
	t.Parallel()
	if os.Getenv("CODELOOP_SNAPSHOT_LARGE") == "" {
		t.Skip("set CODELOOP_SNAPSHOT_LARGE=1 to build a 3 GB, 200,000-file project")
	}
	dir := t.TempDir()
	buf := make([]byte, 15<<10)
	start := time.Now()
	for i := range 200_000 {
		d := filepath.Join(dir, fmt.Sprintf("data%03d", i/1000), fmt.Sprintf("s%02d", i%20))
		if i%1000 < 20 {
			os.MkdirAll(d, 0o755)
		}
		rand.Read(buf)
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%06d.bin", i)), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("built 200,000 files of 15 KiB (%.1f GB) in %s", 200_000*15.0*1024/1e9, time.Since(start).Round(time.Second))
	s, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	step := func(n int) Patch {
		t0 := time.Now()
		cp, _ := s.Begin(ctx, dir, "ses_large", "msg")
		if err := s.BeforeTool(ctx, cp); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "notes.txt"), fmt.Appendf(nil, "step %d\n", n), 0o644)
		p, err := s.Finish(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("step %d: %s, store %.1f MB of %.1f MB, %d changed, %d skip entries", n, time.Since(t0).Round(time.Millisecond),
			float64(s.Size())/1e6, float64(DefaultMaxSize)/1e6, len(p.Files), len(p.Skipped))
		return p
	}
	first := step(1)
	for _, sk := range first.Skipped {
		t.Logf("  skipped %s: %s", sk.Path, sk.Reason)
	}
	// Later steps read the rest until the store's share for the project
	// is full; then a step costs its two scans.
	for n := 2; n <= 10; n++ {
		p := step(n)
		if n == 10 {
			for _, sk := range p.Skipped {
				t.Logf("  skipped %s: %s", sk.Path, sk.Reason)
			}
		}
	}
	// The project's unchanged files may fill three quarters of the cap;
	// the rest stays for what steps change.
	if s.Size() > DefaultMaxSize/4*3+DefaultMaxSize/32 {
		t.Errorf("the store holds %d bytes, more than the project's share of its cap", s.Size())
	}
}
