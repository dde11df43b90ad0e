package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// buffers is a FileSystem as an editor is one: a file open with unsaved
// changes reads as its buffer, any other as the disk; writes change the
// buffers only (the editor saves them when its user says so).
type buffers struct {
	mu     sync.Mutex
	open   map[string]string
	reads  []string
	writes []string
}

func (b *buffers) ReadTextFile(_ context.Context, path string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads = append(b.reads, path)
	if text, ok := b.open[path]; ok {
		return text, nil
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

func (b *buffers) WriteTextFile(_ context.Context, path, content string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes = append(b.writes, path)
	b.open[path] = content
	return nil
}

// TestFileSystemCalls runs the file tools with a call that carries a file
// system: the text they read is the buffers', the text they write lands in
// the buffers and the disk keeps what it held.
func TestFileSystemCalls(t *testing.T) {
	t.Parallel()
	const disk = "saved line\n"
	const unsaved = "unsaved line\nsecond\n"
	for _, c := range []struct {
		name  string
		tool  string
		input func(path string) map[string]any
		// output is in the call's output; buffer is the buffer after it.
		output, buffer string
	}{
		{name: "read", tool: "read", input: func(p string) map[string]any { return map[string]any{"filePath": p} },
			output: "1: unsaved line\n2: second", buffer: unsaved},
		{name: "read offset", tool: "read", input: func(p string) map[string]any { return map[string]any{"filePath": p, "offset": 2} },
			output: "2: second", buffer: unsaved},
		{name: "edit", tool: "edit", input: func(p string) map[string]any {
			return map[string]any{"filePath": p, "oldString": "unsaved", "newString": "edited"}
		}, output: "Edit applied successfully.", buffer: "edited line\nsecond\n"},
		{name: "write", tool: "write", input: func(p string) map[string]any {
			return map[string]any{"filePath": p, "content": "written\n"}
		}, output: "Wrote file successfully.", buffer: "written\n"},
		{name: "apply_patch", tool: "apply_patch", input: func(p string) map[string]any {
			return map[string]any{"patchText": "*** Begin Patch\n*** Update File: " + p + "\n@@\n-second\n+patched\n*** End Patch"}
		}, output: "Success.", buffer: "unsaved line\npatched\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "a.txt")
			writeFiles(t, dir, map[string]string{"a.txt": disk})
			fs := &buffers{open: map[string]string{path: unsaved}}
			call, _ := newCall(t, c.tool, dir, c.input(path))
			call.Files = fs
			res, err := toolByID(t, testEnv(t), c.tool).Run(context.Background(), call)
			if err != nil {
				t.Fatalf("%s: %v", c.tool, err)
			}
			if !strings.Contains(res.Output, c.output) {
				t.Errorf("output %q lacks %q", res.Output, c.output)
			}
			if got := fs.open[path]; got != c.buffer {
				t.Errorf("buffer = %q, want %q", got, c.buffer)
			}
			if got := readFile(t, path); got != disk {
				t.Errorf("the disk changed: %q", got)
			}
			if len(fs.reads) == 0 {
				t.Errorf("%s did not read through the file system", c.tool)
			}
		})
	}
}

// TestFileSystemNewFiles creates files through the file system and
// removes a deleted one from the disk: the protocol of editors has no
// removal.
func TestFileSystemNewFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"old.txt": "bye\n"})
	fs := &buffers{open: map[string]string{}}
	patch := "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Delete File: old.txt\n*** End Patch"
	call, _ := newCall(t, "apply_patch", dir, map[string]any{"patchText": patch})
	call.Files = fs
	if _, err := toolByID(t, testEnv(t), "apply_patch").Run(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if got := fs.open[filepath.Join(dir, "new.txt")]; got != "hello\n" {
		t.Errorf("new.txt buffer = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt was written to the disk: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt was not removed: %v", err)
	}

	call, _ = newCall(t, "edit", dir, map[string]any{"filePath": "made.txt", "oldString": "", "newString": "made\n"})
	call.Files = fs
	if _, err := toolByID(t, testEnv(t), "edit").Run(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if got := fs.open[filepath.Join(dir, "made.txt")]; got != "made\n" {
		t.Errorf("made.txt buffer = %q", got)
	}
}

// TestFileSystemErrors reports an editor that cannot read as the call's
// failure, naming the file.
func TestFileSystemErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "x\n"})
	call, _ := newCall(t, "read", dir, map[string]any{"filePath": "a.txt"})
	call.Files = failing{}
	_, err := toolByID(t, testEnv(t), "read").Run(context.Background(), call)
	if err == nil || !strings.Contains(err.Error(), "the editor could not read "+filepath.Join(dir, "a.txt")) {
		t.Errorf("err = %v", err)
	}
}

type failing struct{}

func (failing) ReadTextFile(context.Context, string) (string, error) {
	return "", os.ErrPermission
}

func (failing) WriteTextFile(context.Context, string, string) error { return os.ErrPermission }
