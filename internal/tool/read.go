package tool

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codeloop/codeloop/internal/permission"
)

// Read limits.
const (
	ReadDefaultLimit = 2000      // lines (or directory entries) per call
	ReadMaxLineChars = 2000      // characters kept of one line
	ReadMaxBytes     = 50 * 1024 // bytes of file text per call
)

type readParams struct {
	FilePath string `json:"filePath" jsonschema:"Absolute path of the file or directory"`
	Offset   int    `json:"offset,omitempty" jsonschema:"First line to read, counting from 1"`
	Limit    int    `json:"limit,omitempty" jsonschema:"Number of lines to read (default 2000)"`
}

func newRead(env Env) Tool {
	return Must(Def[readParams]{
		Traits:  Traits{Kind: KindRead, Contained: true},
		Summary: func(p readParams, dir string) string { return shown(dir, p.FilePath) },
		Touches: func(p readParams, dir string) []Touch {
			t := touch(dir, p.FilePath, false)
			if len(t) > 0 && p.Offset > 0 {
				t[0].Line = p.Offset
			}
			return t
		},
		ID:          "read",
		Description: describe("read"),
		Schema: func(s *jsonschema.Schema) {
			prop(s, "offset").Minimum = ptr(0.0)
			prop(s, "limit").Minimum = ptr(0.0)
		},
		Truncate: env.Truncator,
		Run: func(ctx context.Context, call *Call, p readParams) (*Result, error) {
			return runRead(ctx, env, call, p)
		},
	})
}

func runRead(ctx context.Context, env Env, call *Call, p readParams) (*Result, error) {
	path := absPath(baseDir(call), p.FilePath)
	info, statErr := os.Stat(path)
	isDir := statErr == nil && info.IsDir()
	if err := askExternal(ctx, call, target{path: path, isDir: isDir}); err != nil {
		return nil, err
	}
	req := permission.Request{
		Permission: "read",
		Patterns:   []string{relPath(call, path)},
		Always:     []string{"*"},
		Metadata:   map[string]any{"filepath": path},
	}
	if pattern, ok := secretFile(env, call, path); ok {
		// Asked every time, and never approved by a rule or for later.
		req.Always, req.Protected = nil, true
		req.Reason = secretReason(relPath(call, path), pattern)
		req.Metadata["secret"] = pattern
	}
	if err := call.Ask(ctx, req); err != nil {
		return nil, err
	}
	if statErr != nil {
		if errors.Is(statErr, fs.ErrNotExist) {
			return nil, notFound(path)
		}
		return nil, fmt.Errorf("reading %s: %w", path, statErr)
	}
	if err := checkRegular(path, info); err != nil {
		return nil, err
	}
	offset, limit := max(p.Offset, 1), p.Limit
	if limit <= 0 {
		limit = ReadDefaultLimit
	}
	title := relPath(call, path)
	if isDir {
		return readDir(path, title, offset, limit)
	}
	if mime := attachmentMime(path); mime != "" {
		data, err := readRegular(path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		msg := "Image read successfully"
		if mime == "application/pdf" {
			msg = "PDF read successfully"
		}
		return &Result{
			Title:    title,
			Output:   msg,
			Metadata: map[string]any{"preview": msg, "truncated": false},
			Attachments: []Attachment{{
				Mime:     mime,
				Filename: filepath.Base(path),
				URL:      "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data),
			}},
		}, nil
	}
	if binary, err := isBinaryFile(path); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	} else if binary {
		return nil, fmt.Errorf("cannot read binary file: %s", path)
	}
	text, err := readFileLines(ctx, call, path, offset, limit)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if text.total < offset && (text.total != 0 || offset != 1) {
		return nil, fmt.Errorf("offset %d is out of range for this file (%d lines)", offset, text.total)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<path>%s</path>\n<type>file</type>\n<content>\n", path)
	for i, line := range text.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d: %s", offset+i, line)
	}
	last := offset + len(text.lines) - 1
	switch {
	case text.cut:
		fmt.Fprintf(&b, "\n\n(Output capped at %d KB. Showing lines %d-%d. Use offset=%d to continue.)", ReadMaxBytes/1024, offset, last, last+1)
	case text.more:
		fmt.Fprintf(&b, "\n\n(Showing lines %d-%d of %d. Use offset=%d to continue.)", offset, last, text.total, last+1)
	default:
		fmt.Fprintf(&b, "\n\n(End of file - total %d lines)", text.total)
	}
	b.WriteString("\n</content>")
	var loaded []string
	if env.Instructions != nil {
		if extra := env.Instructions(ctx, call, path); len(extra) > 0 {
			b.WriteString("\n\n<system-reminder>\n" + strings.Join(extra, "\n\n") + "\n</system-reminder>")
			loaded = instructionSources(extra)
		}
	}
	preview := text.lines[:min(20, len(text.lines))]
	meta := map[string]any{
		"preview":   strings.Join(preview, "\n"),
		"truncated": text.more || text.cut,
	}
	if len(loaded) > 0 {
		meta[MetaLoaded] = loaded
	}
	return &Result{Title: title, Output: b.String(), Metadata: meta}, nil
}

// notFound is the error for a missing file, with up to three siblings whose
// names look like the one asked for: one contains the other, they differ
// only in extension, or by at most two characters.
func notFound(path string) error {
	dir, base := filepath.Dir(path), strings.ToLower(filepath.Base(path))
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	entries, _ := os.ReadDir(dir)
	var similar []string
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if strings.Contains(n, base) || strings.Contains(base, n) ||
			strings.TrimSuffix(n, filepath.Ext(n)) == stem || levenshtein(n, base) <= 2 {
			similar = append(similar, filepath.Join(dir, e.Name()))
			if len(similar) == 3 {
				break
			}
		}
	}
	if len(similar) == 0 {
		return fmt.Errorf("file not found: %s", path)
	}
	return fmt.Errorf("file not found: %s\n\nDid you mean one of these?\n%s", path, strings.Join(similar, "\n"))
}

func readDir(path, title string, offset, limit int) (*Result, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", path, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		} else if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(path, name)); err == nil && st.IsDir() {
				name += "/"
			}
		}
		names = append(names, name)
	}
	slices.Sort(names)
	start := min(offset-1, len(names))
	shown := names[start:min(start+limit, len(names))]
	more := start+len(shown) < len(names)
	var b strings.Builder
	fmt.Fprintf(&b, "<path>%s</path>\n<type>directory</type>\n<entries>\n%s\n", path, strings.Join(shown, "\n"))
	if more {
		fmt.Fprintf(&b, "\n(Showing %d of %d entries. Use offset=%d to see more.)\n", len(shown), len(names), start+len(shown)+1)
	} else {
		fmt.Fprintf(&b, "\n(%d entries)\n", len(names))
	}
	b.WriteString("</entries>")
	return &Result{
		Title:  title,
		Output: b.String(),
		Metadata: map[string]any{
			"preview":   strings.Join(shown[:min(20, len(shown))], "\n"),
			"truncated": more,
		},
	}, nil
}

// attachmentMime is the MIME type of files read returns as attachments
// (images a model can see, and PDFs), or "".
func attachmentMime(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".pdf":
		return "application/pdf"
	}
	return ""
}

// binaryExt reports extensions of files that are never text.
func binaryExt(ext string) bool {
	switch strings.ToLower(ext) {
	case ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".exe", ".dll", ".so", ".dylib",
		".class", ".jar", ".war", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp",
		".bin", ".dat", ".obj", ".o", ".a", ".lib", ".wasm", ".pyc", ".pyo", ".ico", ".bmp", ".tiff", ".mp3",
		".mp4", ".mov", ".avi", ".woff", ".woff2", ".ttf", ".otf", ".sqlite", ".db":
		return true
	}
	return false
}

// isBinaryFile reports whether path looks binary: by extension, or by a NUL
// byte or more than 30% control characters in its first 4 KB.
func isBinaryFile(path string) (bool, error) {
	if binaryExt(filepath.Ext(path)) {
		return true, nil
	}
	f, err := openRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return looksBinary(buf[:n]), nil
}

func looksBinary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	control := 0
	for _, c := range b {
		if c == 0 {
			return true
		}
		if c < 9 || (c > 13 && c < 32) {
			control++
		}
	}
	return control*10 > len(b)*3
}

type fileText struct {
	lines []string // the lines shown, already cut to ReadMaxLineChars
	total int      // lines in the file
	more  bool     // lines after the shown ones exist
	cut   bool     // the byte cap stopped the reading
}

// readLines reads up to limit lines from the 1-based line offset, keeping
// within ReadMaxBytes, and counts the file's lines. CRLF counts as one line
// break; a UTF-8 byte order mark is not shown.
func readLines(path string, offset, limit int) (fileText, error) {
	f, err := openRegular(path)
	if err != nil {
		return fileText{}, err
	}
	defer f.Close()
	return scanLines(f, offset, limit)
}

// scanLines is readLines over the text of rd.
func scanLines(rd io.Reader, offset, limit int) (fileText, error) {
	var t fileText
	r := bufio.NewReaderSize(rd, 64*1024)
	size := 0
	for {
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			if errors.Is(err, io.EOF) {
				return t, nil
			}
			return t, err
		}
		t.total++
		if t.total < offset || t.more {
			continue
		}
		if len(t.lines) >= limit {
			t.more = true
			continue
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if t.total == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		line = cutLine(line)
		n := len(line) + len(strconv.Itoa(t.total)) + 2 // with its "N: " prefix
		if len(t.lines) > 0 {
			n++
		}
		if size+n > ReadMaxBytes {
			t.cut, t.more = true, true
			continue
		}
		size += n
		t.lines = append(t.lines, line)
	}
}

// cutLine keeps the first ReadMaxLineChars characters of a long line.
func cutLine(line string) string {
	if utf8.RuneCountInString(line) <= ReadMaxLineChars {
		return line
	}
	i, n := 0, 0
	for i = range line {
		if n == ReadMaxLineChars {
			break
		}
		n++
	}
	return line[:i] + fmt.Sprintf("... (line truncated to %d chars)", ReadMaxLineChars)
}

// MetaLoaded is the metadata key under which read lists the instruction
// files it attached: later reads leave them out while this output stays in
// the history.
const MetaLoaded = "loaded"

// instructionSources returns the paths of instruction texts, each headed
// "Instructions from: <path>".
func instructionSources(texts []string) []string {
	var out []string
	for _, t := range texts {
		first, _, _ := strings.Cut(t, "\n")
		if p, ok := strings.CutPrefix(first, "Instructions from: "); ok {
			out = append(out, p)
		}
	}
	return out
}
