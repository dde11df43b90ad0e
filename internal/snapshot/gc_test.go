package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCollect checks the count per session and the retention: a session
// keeps at most MaxCheckpoints checkpoints (the newest), and checkpoints
// past the retention go with the objects only they named, while reverts
// of the kept ones still work.
func TestCollect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	os.WriteFile(path, []byte("v0\n"), 0o644)
	now := time.Now()
	s, err := Open(Options{Dir: t.TempDir(), MaxCheckpoints: 5, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var cps []string
	for i := 1; i <= 12; i++ {
		cp, _ := s.Begin(ctx, dir, "ses_gc", "msg")
		toolWrite(t, s, "ses_gc", path, fmt.Sprintf("v%d\n", i))
		if _, err := s.Finish(ctx, cp); err != nil {
			t.Fatal(err)
		}
		cps = append(cps, cp)
	}
	s.Collect()
	if n := s.Stats().Checkpoints; n != 5 {
		t.Errorf("%d checkpoints after a collection, want the newest 5", n)
	}
	if _, err := s.Load(cps[0]); err == nil {
		t.Error("the oldest checkpoint is still there")
	}
	if _, err := s.Revert(ctx, "ses_gc", cps[7:], false); err != nil {
		t.Fatalf("reverting the kept checkpoints: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "v7\n" {
		t.Errorf("f.txt = %q after reverting the kept steps, want v7", b)
	}
	before := s.Stats()
	now = now.Add(31 * 24 * time.Hour)
	c := s.Collect()
	after := s.Stats()
	if after.Checkpoints != 0 || c.Objects == 0 || after.Bytes >= before.Bytes {
		t.Errorf("after the retention: %+v (was %+v), collected %+v; want no checkpoints and fewer objects", after, before, c)
	}
	if problems, err := s.Verify(ctx); err != nil || len(problems) > 0 {
		t.Errorf("verify after collections: %v %v", problems, err)
	}
}
