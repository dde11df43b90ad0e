package tool

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPatch feeds arbitrary patch text to the apply_patch parser and applies
// every parsed update to arbitrary file content. Neither may panic; every
// failure must be a *PatchError (the model sees it), and a successful
// update must end with a newline.
//
// Run it with:
//
//	go test ./internal/tool -run '^$' -fuzz '^FuzzPatch$' -fuzztime 5m -parallel 1
func FuzzPatch(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "apply-patch", "scenarios", "*", "patch.txt"))
	for _, path := range seeds {
		patch, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		content := ""
		inputs, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "input", "*"))
		for _, in := range inputs {
			if b, err := os.ReadFile(in); err == nil {
				content = string(b)
				break
			}
		}
		f.Add(string(patch), content)
	}
	f.Add("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End of File\n*** End Patch", "x\r\ny\r\n")
	f.Add("cat <<'EOF'\n*** Begin Patch\n*** Add File: b\n+hi\n*** End Patch\nEOF", "")
	f.Add("*** Begin Patch\n*** Update File: a\n@@ func f\n \n- “q”\n+ 'q'\n\n*** Delete File: c\n*** End Patch", "func f\n\n  \"q\"\n")
	f.Fuzz(func(t *testing.T, patch, content string) {
		ops, err := parsePatch(patch)
		if err != nil {
			if pe := (*PatchError)(nil); !errors.As(err, &pe) {
				t.Fatalf("parse error %T is not a *PatchError: %v", err, err)
			}
			return
		}
		if len(ops) == 0 {
			t.Fatal("no error and no operations")
		}
		for _, op := range ops {
			if op.path == "" {
				t.Fatalf("operation %c without a path", op.kind)
			}
			switch op.kind {
			case 'A', 'D':
			case 'U':
				if len(op.chunks) == 0 {
					t.Fatalf("update of %q without sections", op.path)
				}
				out, err := applyChunks(content, op.chunks, op.path)
				if err != nil {
					if pe := (*PatchError)(nil); !errors.As(err, &pe) {
						t.Fatalf("apply error %T is not a *PatchError: %v", err, err)
					}
					continue
				}
				if !strings.HasSuffix(out, "\n") {
					t.Fatalf("updated content %q does not end with a newline", out)
				}
			default:
				t.Fatalf("unknown operation kind %q", op.kind)
			}
		}
	})
}
