package tool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/permission"
)

func TestEditTool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    *string // initial content; nil: no file
		input   map[string]any
		want    string // content afterwards
		errText string
	}{
		{name: "replace", file: ptr("package a\n\nfunc A() int { return 1 }\n"),
			input: map[string]any{"oldString": "return 1", "newString": "return 2"}, want: "package a\n\nfunc A() int { return 2 }\n"},
		{name: "create with empty oldString", input: map[string]any{"oldString": "", "newString": "new file\n"}, want: "new file\n"},
		{name: "empty oldString on an existing file", file: ptr("keep\n"), input: map[string]any{"oldString": "", "newString": "x"},
			want: "keep\n", errText: "already exists"},
		{name: "missing file", input: map[string]any{"oldString": "a", "newString": "b"}, errText: "not found"},
		{name: "identical strings", file: ptr("a\n"), input: map[string]any{"oldString": "a", "newString": "a"}, want: "a\n",
			errText: "No changes to apply: oldString and newString are identical."},
		{name: "ambiguous", file: ptr("x = 1\ny = 2\nx = 1\n"), input: map[string]any{"oldString": "x = 1", "newString": "x = 3"},
			want: "x = 1\ny = 2\nx = 1\n", errText: "Found 2 matches for oldString in the file (at lines 1, 3)"},
		{name: "replaceAll", file: ptr("x = 1\ny = 2\nx = 1\n"), input: map[string]any{"oldString": "x = 1", "newString": "x = 3", "replaceAll": true},
			want: "x = 3\ny = 2\nx = 3\n"},
		{name: "crlf kept", file: ptr("one\r\ntwo\r\nthree\r\n"), input: map[string]any{"oldString": "two\nthree", "newString": "2\n3"},
			want: "one\r\n2\r\n3\r\n"},
		{name: "bom kept", file: ptr(bom + "a\n"), input: map[string]any{"oldString": "a", "newString": "b"}, want: bom + "b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			if tt.file != nil {
				writeFiles(t, dir, map[string]string{"f.txt": *tt.file})
			}
			tt.input["filePath"] = path
			env := testEnv(t)
			sub := env.Bus.Subscribe(bus.Filter{Types: []string{bus.FileEdited}}, 4)
			defer sub.Close()
			call, asker := newCall(t, "edit", dir, tt.input)
			res, err := toolByID(t, env, "edit").Run(context.Background(), call)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error %v, want one containing %q", err, tt.errText)
				}
			} else if err != nil {
				t.Fatal(err)
			} else {
				if res.Output != "Edit applied successfully." || res.Title != "f.txt" {
					t.Errorf("result %q / %q", res.Output, res.Title)
				}
				if d, _ := res.Metadata["diff"].(string); !strings.Contains(d, "@@") {
					t.Errorf("metadata diff %q", d)
				}
				reqs := asker.requests("edit")
				if len(reqs) != 1 || reqs[0].Patterns[0] != "f.txt" {
					t.Errorf("edit asks %+v, want one for f.txt", reqs)
				}
				select {
				case e := <-sub.C:
					if e.Properties.(map[string]any)["file"] != path {
						t.Errorf("file.edited for %v", e.Properties)
					}
				default:
					t.Error("no file.edited event")
				}
			}
			if tt.want != "" || tt.file != nil {
				if got := readFile(t, path); got != tt.want {
					t.Errorf("file %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestEditDeniedChangesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "a\n"})
	call, asker := newCall(t, "edit", dir, map[string]any{"filePath": filepath.Join(dir, "f.txt"), "oldString": "a", "newString": "b"})
	asker.rules = permission.Ruleset{{Permission: "edit", Pattern: "*", Action: permission.Deny}}
	_, err := toolByID(t, testEnv(t), "edit").Run(context.Background(), call)
	var denied *permission.DeniedError
	if !errors.As(err, &denied) {
		t.Fatalf("error %v, want a denial", err)
	}
	if got := readFile(t, filepath.Join(dir, "f.txt")); got != "a\n" {
		t.Errorf("file changed to %q", got)
	}
}

// TestEditLocksPerFile runs many edits of one file at once; the per-file
// lock makes every one of them land.
func TestEditLocksPerFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 20
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "marker %d\n", i)
	}
	path := filepath.Join(dir, "f.txt")
	writeFiles(t, dir, map[string]string{"f.txt": b.String()})
	edit := toolByID(t, testEnv(t), "edit")
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			call, _ := newCall(t, "edit", dir, map[string]any{"filePath": path,
				"oldString": fmt.Sprintf("marker %d\n", i), "newString": fmt.Sprintf("done %d\n", i)})
			if _, err := edit.Run(context.Background(), call); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := readFile(t, path)
	if strings.Contains(got, "marker") || strings.Count(got, "done") != n {
		t.Errorf("lost edits:\n%s", got)
	}
}

func TestWriteTool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := testEnv(t)
	// New file in a new directory.
	path := filepath.Join(dir, "a", "b", "new.txt")
	res, err := run(t, env, "write", dir, map[string]any{"filePath": path, "content": "hello\n"})
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, path) != "hello\n" || res.Output != "Wrote file successfully." || res.Metadata["exists"] != false {
		t.Errorf("write result %+v", res)
	}
	// Overwriting a file with a byte order mark keeps it; the diff shows the change.
	bomPath := filepath.Join(dir, "bom.txt")
	writeFiles(t, dir, map[string]string{"bom.txt": bom + "old\n"})
	res, err = run(t, env, "write", dir, map[string]any{"filePath": bomPath, "content": "new\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, bomPath); got != bom+"new\n" {
		t.Errorf("content %q, want the BOM kept", got)
	}
	d, _ := res.Metadata["diff"].(string)
	if !strings.Contains(d, "-old") || !strings.Contains(d, "+new") || res.Metadata["exists"] != true {
		t.Errorf("metadata %+v", res.Metadata)
	}
	// A directory cannot be written.
	if _, err := run(t, env, "write", dir, map[string]any{"filePath": filepath.Join(dir, "a"), "content": "x"}); err == nil {
		t.Error("wrote over a directory")
	}
	// Outside the project: external_directory is asked first.
	outside := t.TempDir()
	call, asker := newCall(t, "write", dir, map[string]any{"filePath": filepath.Join(outside, "x.txt"), "content": "x"})
	if _, err := toolByID(t, env, "write").Run(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	ext := asker.requests("external_directory")
	real, _ := filepath.EvalSymlinks(outside)
	if len(ext) != 1 || ext[0].Patterns[0] != filepath.ToSlash(real)+"/*" || asker.asked[0].Permission != "external_directory" {
		t.Errorf("asks %+v", asker.asked)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err != nil {
		t.Error(err)
	}
}
