package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunIncompleteTurnExits1 ends turns in ways that are not errors of
// the model or of codeloop but leave the task undone: run must exit 1 and
// say why on standard error.
func TestRunIncompleteTurnExits1(t *testing.T) {
	tests := []struct {
		name   string
		script string
		args   []string
		files  map[string]string
		want   string
	}{
		{
			name:   "empty answer",
			script: "step\nfinish stop input=5 output=0\n",
			args:   []string{"run", "say something"},
			want:   "the model's answer was empty",
		},
		{
			name:   "binary attachment",
			script: "step\ntext I see no file.\nfinish stop input=5 output=3\n",
			args:   []string{"run", "-f", "blob.bin", "what is in this file"},
			files:  map[string]string{"blob.bin": "\x00\x01\x02binary\x00data"},
			want:   "a file could not be attached",
		},
		{
			name:   "refused permission",
			script: "step\ncall c1 bash {\"command\":\"rm -rf build\"}\nfinish tool-calls input=5 output=3\nstep\ntext Could not.\nfinish stop input=5 output=3\n",
			args:   []string{"run", "clean up"},
			want:   "the turn ended after a permission request was rejected",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, tt.script, tt.files)
			if tt.name == "refused permission" {
				if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(`{"permission": {"bash": {"rm *": "ask"}}}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			stdout, stderr, code := p.run(tt.args...)
			if code != 1 || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, want 1 and %q on stderr\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
		})
	}
}
