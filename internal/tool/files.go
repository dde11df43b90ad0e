package tool

import (
	"context"
	"fmt"
	"strings"
)

// FileSystem reads and writes text files somewhere other than the local
// disk on behalf of a session: an editor's buffers, which may hold changes
// not yet saved. Paths are absolute.
//
// When a call carries one (Call.Files), read takes the text of a file from
// it, and write, edit and apply_patch take a file's current text from it
// and hand it the new text; everything else (whether a file exists, is a
// directory, is binary; removing files) still looks at the disk.
type FileSystem interface {
	// ReadTextFile returns the current text of the file at path.
	ReadTextFile(ctx context.Context, path string) (string, error)
	// WriteTextFile replaces the text of the file at path, creating it
	// when it does not exist.
	WriteTextFile(ctx context.Context, path, content string) error
}

// readText returns the content of the regular file at path: from the
// call's file system when it has one, else from the disk.
func readText(ctx context.Context, call *Call, path string) ([]byte, error) {
	if call == nil || call.Files == nil {
		return readRegular(path)
	}
	text, err := call.Files.ReadTextFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("the editor could not read %s: %w", path, err)
	}
	return []byte(text), nil
}

// writeText replaces the content of path: through the call's file system
// when it has one, else atomically on disk.
func writeText(ctx context.Context, call *Call, path, content string, check func(string) error) error {
	if call == nil || call.Files == nil {
		return writeFile(path, content, check)
	}
	if err := call.Files.WriteTextFile(ctx, path, content); err != nil {
		return fmt.Errorf("the editor could not write %s: %w", path, err)
	}
	return nil
}

// readFileLines is readLines over the text the call's file system holds
// for path, or over the file on disk when it has none.
func readFileLines(ctx context.Context, call *Call, path string, offset, limit int) (fileText, error) {
	if call == nil || call.Files == nil {
		return readLines(path, offset, limit)
	}
	text, err := readText(ctx, call, path)
	if err != nil {
		return fileText{}, err
	}
	return scanLines(strings.NewReader(string(text)), offset, limit)
}
