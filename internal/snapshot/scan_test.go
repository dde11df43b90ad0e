package snapshot

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanFindsEveryFile: a walk hands on every regular file and symbolic
// link of the tree, with the stat os.Lstat gives, and nothing else: in a
// directory too large to be read in one go, under long and odd names, and
// beside links, pipes and ignored paths.
func TestScanFindsEveryFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		// ignored are the paths the project's ignore rules leave out.
		ignored []string
	}{
		{"a directory of many entries", `mkdir many && cd many &&
			seq -f 'entry-with-a-long-name-to-fill-the-read-buffer-sooner-%05g.txt' 0 2999 | xargs touch`, nil},
		{"long and odd names", `mkdir -p 'a dir/ünï' && printf x > "$(printf 'n%.0s' $(seq 255))" &&
			printf y > 'a dir/ünï/with space' && printf z > 'a dir/new
line' && printf w > 'a dir/.hidden' && mkdir empty`, nil},
		{"links, pipes and ignored paths", `mkdir -p d/tmp d/keep node_modules/m build && printf a > d/keep/a.txt &&
			ln -s keep d/dirlink && ln -s nowhere d/dangling && mkfifo d/pipe && printf b > d/tmp/b.txt &&
			printf c > d/c.log && printf 'tmp/\n*.log\n' > d/.gitignore && printf m > node_modules/m/m.js &&
			printf o > build/o && truncate -s 11M d/big.bin`, []string{"d/tmp/b.txt", "d/c.log"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			sh(t, dir, tt.script)
			want := map[string]stat{}
			err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				r, _ := filepath.Rel(dir, path)
				r = filepath.ToSlash(r)
				switch {
				case d.IsDir() && slices.Contains(ignoredDirs, d.Name()):
					return filepath.SkipDir
				case d.IsDir() || slices.Contains(tt.ignored, r):
					return nil
				case !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0:
					return nil
				}
				info, err := os.Lstat(path)
				if err != nil {
					return err
				}
				want[r] = statOf(info)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]stat{}
			bigs := 0
			res, err := scanTree(context.Background(), dir, nil, nil, func(k []byte, st stat, big bool) {
				if _, dup := got[string(k)]; dup {
					t.Errorf("%s handed on twice", k)
				}
				got[string(k)] = st
				if big != (st.Size > MaxFileSize) {
					t.Errorf("%s: big = %v at %d bytes", k, big, st.Size)
				}
				if big {
					bigs++
				}
			})
			if err != nil || len(res.skipped) > 0 {
				t.Fatalf("scanTree: %v, skipped %v", err, res.skipped)
			}
			for k, st := range want {
				if g, ok := got[k]; !ok {
					t.Errorf("%q not found", k)
				} else if g != st {
					t.Errorf("%q: stat %+v, os.Lstat says %+v", k, g, st)
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%q found, but it is not a file the scan keeps", k)
				}
			}
			if len(want) == 0 || strings.Contains(tt.name, "links") && bigs != 1 {
				t.Errorf("found %d files, %d of them big: the tree was not made as meant (%v)", len(got), bigs, slices.Sorted(maps.Keys(got)))
			}
		})
	}
}
