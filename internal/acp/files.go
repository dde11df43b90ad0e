package acp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// editorFiles reads and writes files through the editor
// (fs/read_text_file, fs/write_text_file), so the file tools see the text
// of unsaved buffers and their changes land in the editor.
type editorFiles struct {
	conn      *sdk.AgentSideConnection
	sessionID string
}

var _ client.FileSystem = editorFiles{}

// ReadTextFile asks the editor for the text of path.
func (f editorFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	resp, err := f.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.sessionID), Path: path})
	if err != nil {
		return "", editorError(err)
	}
	return resp.Content, nil
}

// WriteTextFile hands the editor the new text of path. The protocol has no
// way to write an empty file, so that one is written on disk.
func (f editorFiles) WriteTextFile(ctx context.Context, path, content string) error {
	if content == "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, nil, 0o644)
	}
	_, err := f.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.sessionID), Path: path, Content: content})
	if err != nil {
		return editorError(err)
	}
	return nil
}

// editorError is the editor's JSON-RPC error as its message says it.
func editorError(err error) error {
	if re, ok := err.(*sdk.RequestError); ok {
		return fmt.Errorf("%s (error %d)", re.Message, re.Code)
	}
	return err
}

// files is the file system of a session's prompts: the editor's when it
// offered both file methods at initialize, else nil (the disk).
func (a *Agent) files(s *session) client.FileSystem {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.editorFS {
		return nil
	}
	return editorFiles{conn: a.conn, sessionID: s.id}
}
