package snapshot

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexRoundTrip: a saved index reads back as it was, and a damaged
// one is refused rather than half read.
func TestIndexRoundTrip(t *testing.T) {
	h := strings.Repeat("ab", 32)
	l := strings.Repeat("0f", 32)
	files := map[string]indexed{
		"a.go":        {Stat: stat{Size: 12, Mtime: 1700000000123456789, Ctime: -5, Ino: 42, Mode: 0o644}, Entry: &Entry{Hash: h, Size: 12, Mode: 0o644}},
		"dir/big.bin": {Stat: stat{Size: 1 << 30, Mtime: 1, Mode: 0o600}, Entry: &Entry{Hash: h, List: l, Size: 1 << 30, Mode: 0o600}},
		"link":        {Stat: stat{Size: 3, Mode: 0o777 | os.ModeSymlink}, Entry: &Entry{Hash: l, Size: 3, Mode: 0o777 | os.ModeSymlink}},
		"unkept":      {Stat: stat{Size: 7}},
	}
	data := encodeIndex("/work/p", files)
	wt, got, err := decodeIndex(data)
	if err != nil || wt != "/work/p" {
		t.Fatalf("decodeIndex = %q, %v", wt, err)
	}
	if !maps.EqualFunc(got, files, func(a, b indexed) bool {
		return a.Stat == b.Stat && (a.Entry == nil) == (b.Entry == nil) && (a.Entry == nil || *a.Entry == *b.Entry)
	}) {
		t.Errorf("read back %v, want %v", got, files)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"old JSON form", []byte(`{"worktree":"/work/p","files":{}}`)},
		{"cut short", data[:len(data)-10]},
		{"bad entry flag", append(append([]byte{}, data[:len(indexMagic)]...), []byte("\x01/\x01\x01a\x00\x00\x00\x00\x00\x07")...)},
	}
	for _, tt := range tests {
		if _, _, err := decodeIndex(tt.data); err == nil {
			t.Errorf("%s: decoded without an error", tt.name)
		}
	}
}

// TestSizeKeptBetweenRuns: a store reopened after a clean close knows
// its size without measuring it, and that size is the store's or a little
// more (two writers of one object, here the background scan and the
// edit's pre-image, may both count it), never less.
func TestSizeKeptBetweenRuns(t *testing.T) {
	dir, store := t.TempDir(), t.TempDir()
	ctx := context.Background()
	for i, content := range []string{"one\n", "two, longer\n", "three, longer still\n"} {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(Options{Dir: store})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && s.size < 0 {
			t.Fatalf("run %d: the size was not kept from the last run", i)
		}
		cp, _ := s.Begin(ctx, dir, "ses_s", "msg")
		if err := s.BeforeChange(ctx, "ses_s", []string{filepath.Join(dir, "f.txt")}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(content+"changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Finish(ctx, cp); err != nil {
			t.Fatal(err)
		}
		if got, want := s.Size(), s.measure(); got < want || got > want+want/10 {
			t.Errorf("run %d: Size() = %d, the store holds %d", i, got, want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
