package session

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/tool"
)

// Media types of attached files the loop reads as text: plain text and
// directories (listed).
const (
	mimeText      = "text/plain"
	mimeDirectory = "application/x-directory"
)

// attach turns the parts of a new user message into what is stored, as
// OpenCode does: a text file (file: URL, text/plain) is read with the read
// tool, and the call and its output go before the file part as synthetic
// text; a directory is listed the same way; an image or PDF the read tool
// returns, and any other local file, becomes a data: URL; a data: text file
// is decoded into synthetic text; an MCP resource is read (see
// attachResource); an agent part is followed by the
// instruction to hand the request to that sub-agent. Other parts are kept
// as they are. Files are read through files when it is set.
func (e *Engine) attach(ctx context.Context, sess Info, user message.Info, parts []message.Part, files tool.FileSystem) []message.Part {
	out := make([]message.Part, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case *message.FilePart:
			if server, uri, ok := p.Resource(); ok {
				out = append(out, e.attachResource(ctx, p, server, uri)...)
				continue
			}
			out = append(out, e.attachFile(ctx, sess, user, p, files)...)
		case *message.AgentPart:
			out = append(out, p, &message.TextPart{Text: e.cfg.Texts.Mention(p.Name), Synthetic: true})
		default:
			out = append(out, p)
		}
	}
	return out
}

// readNote is the synthetic text recording a read the user asked for.
func readNote(args map[string]any) *message.TextPart {
	b, _ := json.Marshal(args)
	return &message.TextPart{Text: "Called the Read tool with the following input: " + string(b), Synthetic: true}
}

func (e *Engine) attachFile(ctx context.Context, sess Info, user message.Info, p *message.FilePart, files tool.FileSystem) []message.Part {
	if data, mime, ok := message.DecodeDataURL(p.URL); ok && (p.Mime == mimeText || (p.Mime == "" && mime == mimeText)) {
		return []message.Part{
			readNote(map[string]any{"filePath": p.Filename}),
			&message.TextPart{Text: string(data), Synthetic: true},
			p,
		}
	}
	u, err := url.Parse(p.URL)
	if err != nil || u.Scheme != "file" {
		return []message.Part{p}
	}
	path := filepath.FromSlash(u.Path)
	if note := e.secretNote(sess, path); note != nil {
		return []message.Part{note}
	}
	if p.Mime != mimeText && p.Mime != mimeDirectory {
		// Media and other files go to the model as they are.
		data, err := os.ReadFile(path)
		if err != nil {
			return []message.Part{e.readFailed(path, err)}
		}
		file := *p
		file.URL = "data:" + p.Mime + ";base64," + base64.StdEncoding.EncodeToString(data)
		return []message.Part{readNote(map[string]any{"filePath": path}), &file}
	}
	if e.cfg.Read == nil {
		return []message.Part{p}
	}
	args := map[string]any{"filePath": path}
	if p.Mime == mimeText {
		// A range in the URL (?start=10&end=20) reads those lines only.
		start, _ := strconv.Atoi(u.Query().Get("start"))
		end, _ := strconv.Atoi(u.Query().Get("end"))
		if start > 0 {
			args["offset"] = start
			if end >= start {
				args["limit"] = end - start + 1
			}
		}
	}
	input, _ := json.Marshal(args)
	res, err := e.cfg.Read.Run(ctx, &tool.Call{
		ID: "attach", Tool: e.cfg.Read.ID(), Input: input, SessionID: sess.ID, MessageID: user.ID,
		Agent: user.Agent, Dir: sess.Directory, Worktree: e.cfg.Worktree, Files: files,
	})
	if err != nil {
		return []message.Part{e.readFailed(path, err)}
	}
	out := []message.Part{readNote(args), &message.TextPart{Text: res.Output, Synthetic: true}}
	if len(res.Attachments) == 0 {
		return append(out, p)
	}
	for _, a := range res.Attachments {
		out = append(out, &message.FilePart{Mime: a.Mime, Filename: a.Filename, URL: a.URL, Source: p.Source})
	}
	return out
}

// AttachErrorKey is the metadata key of the synthetic text that stands for
// a file of the prompt that could not be attached; its value says which
// file and why.
const AttachErrorKey = "attachError"

// readFailed is the synthetic text that replaces a file that could not be
// read, so the model knows the user meant to show it.
func (e *Engine) readFailed(path string, err error) message.Part {
	msg := strings.TrimSpace(err.Error())
	e.cfg.Log.Warn("attaching a file", "path", path, "err", msg)
	return &message.TextPart{Text: fmt.Sprintf("Read tool failed to read %s with the following error: %s", path, msg), Synthetic: true,
		Metadata: map[string]any{AttachErrorKey: path + ": " + msg}}
}

// secretNote is the synthetic text that replaces an attached secret file,
// or nil when path is not one. The file's content is not read: the model
// may ask for it with the read tool, which asks the user every time.
func (e *Engine) secretNote(sess Info, path string) message.Part {
	secrets := e.cfg.Secrets
	if secrets == nil {
		secrets, _ = tool.NewSecretFiles(tool.DefaultSecretFiles())
	}
	root := e.cfg.Worktree
	if root == "" {
		root = sess.Directory
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil
	}
	pattern, ok := secrets.Match(root, path)
	if !ok {
		return nil
	}
	return &message.TextPart{Synthetic: true, Text: fmt.Sprintf("The user attached %s, a secret file (it matches the secret_files pattern %q), "+
		"so its content was not sent. If it is needed, read it with the read tool: the user is asked to approve that read.", path, pattern)}
}
