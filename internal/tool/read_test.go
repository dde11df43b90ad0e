package tool

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
)

// pngBytes is a valid 1x1 PNG image.
func pngBytes(t *testing.T) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func lines(n, width int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		l := fmt.Sprintf("line %d ", i)
		b.WriteString(l + strings.Repeat("x", max(0, width-len(l))) + "\n")
	}
	return b.String()
}

func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"small.txt":        "alpha\nbeta\ngamma\n",
		"hundred.txt":      lines(100, 10),
		"many.txt":         lines(2500, 10),
		"wide.txt":         lines(3000, 100),
		"long.txt":         strings.Repeat("y", 3000) + "\nshort\n",
		"crlf.txt":         bom + "one\r\ntwo\r\n",
		"empty.txt":        "",
		"bin.dat.txt":      "abc\x00def",
		"archive.zip":      "PK not really",
		"sub/inner.go":     "package sub\n",
		"sub/deeper/x.txt": "x",
		"config.yaml":      "a: 1\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "pic.png"), pngBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		input    map[string]any
		contains []string
		absent   []string
		errText  string
	}{
		{name: "whole file", input: map[string]any{"filePath": "small.txt"}, contains: []string{
			"<path>" + filepath.Join(dir, "small.txt") + "</path>\n<type>file</type>\n<content>\n1: alpha\n2: beta\n3: gamma\n\n(End of file - total 3 lines)\n</content>"}},
		{name: "offset and limit", input: map[string]any{"filePath": "hundred.txt", "offset": 10, "limit": 5},
			contains: []string{"\n10: line 10", "\n14: line 14", "(Showing lines 10-14 of 100. Use offset=15 to continue.)"}, absent: []string{"15: line 15", "\n9: "}},
		{name: "offset as a string", input: map[string]any{"filePath": "hundred.txt", "offset": "99"},
			contains: []string{"99: line 99", "100: line 100", "(End of file - total 100 lines)"}},
		{name: "default line limit", input: map[string]any{"filePath": "many.txt"},
			contains: []string{"2000: line 2000", "(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)"}, absent: []string{"2001: "}},
		{name: "byte cap", input: map[string]any{"filePath": "wide.txt"},
			contains: []string{"(Output capped at 50 KB. Showing lines 1-"}, absent: []string{"3000: "}},
		{name: "long line cut", input: map[string]any{"filePath": "long.txt"},
			contains: []string{"1: " + strings.Repeat("y", 2000) + "... (line truncated to 2000 chars)\n2: short"}},
		{name: "crlf and bom", input: map[string]any{"filePath": "crlf.txt"}, contains: []string{"1: one\n2: two\n"}, absent: []string{"\r", bom}},
		{name: "empty file", input: map[string]any{"filePath": "empty.txt"}, contains: []string{"(End of file - total 0 lines)"}},
		{name: "directory", input: map[string]any{"filePath": "sub"},
			contains: []string{"<type>directory</type>", "<entries>\ndeeper/\ninner.go\n\n(2 entries)\n</entries>"}},
		{name: "directory with limit", input: map[string]any{"filePath": ".", "limit": 2},
			contains: []string{"archive.zip\nbin.dat.txt\n", "(Showing 2 of "}},
		{name: "binary by content", input: map[string]any{"filePath": "bin.dat.txt"}, errText: "cannot read binary file"},
		{name: "binary by extension", input: map[string]any{"filePath": "archive.zip"}, errText: "cannot read binary file"},
		{name: "missing, with suggestions", input: map[string]any{"filePath": "config.yml"},
			errText: "file not found: " + filepath.Join(dir, "config.yml") + "\n\nDid you mean one of these?\n" + filepath.Join(dir, "config.yaml")},
		{name: "missing", input: map[string]any{"filePath": "nothing-like-it"}, errText: "file not found"},
		{name: "offset out of range", input: map[string]any{"filePath": "small.txt", "offset": 10}, errText: "offset 10 is out of range for this file (3 lines)"},
		{name: "negative offset", input: map[string]any{"filePath": "small.txt", "offset": -1}, errText: "invalid arguments"},
	}
	env := testEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, env, "read", dir, tt.input)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error %v, want one containing %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.contains {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, cutForLog(res.Output))
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(res.Output, s) {
					t.Errorf("output has %q:\n%s", s, cutForLog(res.Output))
				}
			}
			if len(res.Output) > ReadMaxBytes+1024 {
				t.Errorf("output of %d bytes exceeds the cap", len(res.Output))
			}
		})
	}
}

func cutForLog(s string) string {
	if len(s) > 600 {
		return s[:300] + "\n...\n" + s[len(s)-300:]
	}
	return s
}

func TestReadImageAttachment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := pngBytes(t)
	if err := os.WriteFile(filepath.Join(dir, "pic.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := run(t, testEnv(t), "read", dir, map[string]any{"filePath": filepath.Join(dir, "pic.png")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "Image read successfully" || len(res.Attachments) != 1 {
		t.Fatalf("result %+v", res)
	}
	a := res.Attachments[0]
	if a.Mime != "image/png" || a.URL != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(png) {
		t.Errorf("attachment %s %.40s", a.Mime, a.URL)
	}
}

func TestReadInstructionsAndPermissions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pkg/a.go": "package pkg\n", ".env": "SECRET=1\n"})
	env := testEnv(t)
	var asked []string
	env.Instructions = func(_ context.Context, _ *Call, path string) []string {
		asked = append(asked, path)
		return []string{"Instructions from: pkg/AGENTS.md\nUse tabs."}
	}
	call, asker := newCall(t, "read", dir, map[string]any{"filePath": "pkg/a.go"})
	res, err := toolByID(t, env, "read").Run(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Output, "</content>\n\n<system-reminder>\nInstructions from: pkg/AGENTS.md\nUse tabs.\n</system-reminder>") {
		t.Errorf("output:\n%s", res.Output)
	}
	if len(asked) != 1 || asked[0] != filepath.Join(dir, "pkg", "a.go") {
		t.Errorf("hook called with %v", asked)
	}
	if reqs := asker.requests("read"); len(reqs) != 1 || reqs[0].Patterns[0] != "pkg/a.go" || reqs[0].Always[0] != "*" {
		t.Errorf("read asks %+v", reqs)
	}
	// The default rules ask for .env files; a deny rule refuses them.
	call, asker = newCall(t, "read", dir, map[string]any{"filePath": ".env"})
	asker.rules = permission.Ruleset{{Permission: "read", Pattern: "*.env", Action: permission.Deny}}
	_, err = toolByID(t, env, "read").Run(context.Background(), call)
	var denied *permission.DeniedError
	if !errors.As(err, &denied) {
		t.Errorf("error %v, want a denial", err)
	}
}
