package prompt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/tool"
)

// Nested attaches the instruction files of the directories a read goes
// into: when the read tool opens a file, the AGENTS.md (or CLAUDE.md, or
// CONTEXT.md) of each directory between the file and the project root is
// returned for the read's output, once per session, unless the system
// prompt already holds it. Make one per app beside its Builder; it is safe
// for concurrent use.
type Nested struct {
	b *Builder

	mu     sync.Mutex
	loaded map[string]map[string]bool // session id → real paths attached
}

// NewNested returns a tracker that knows the system prompt's files from b.
func NewNested(b *Builder) *Nested {
	return &Nested{b: b, loaded: map[string]map[string]bool{}}
}

// Attach returns the instructions to attach to a read of filePath by call,
// each wrapped as "<system-reminder>Instructions from: <path>\n…
// </system-reminder>", outermost directory first.
func (n *Nested) Attach(ctx context.Context, call *tool.Call, filePath string) []string {
	texts := n.Instructions(ctx, call, filePath)
	for i, t := range texts {
		texts[i] = "<system-reminder>" + t + "\n</system-reminder>"
	}
	return texts
}

// Instructions is Attach without the <system-reminder> wrapping, each text
// headed "Instructions from: <path>". It is tool.Env.Instructions: the read
// tool wraps what it returns itself.
//
// The directories considered run from the file's directory (or the
// directory itself, when a directory is read) up to the worktree root,
// leaving out the working directory and its ancestors: the system prompt
// already chose among their files. Each directory contributes its first
// file of AGENTS.md, CLAUDE.md, CONTEXT.md. Files outside the worktree get
// nothing.
func (n *Nested) Instructions(ctx context.Context, call *tool.Call, filePath string) []string {
	dir, root := n.b.opts.Dir, n.b.opts.Worktree
	session := ""
	if call != nil {
		session = call.SessionID
		if call.Dir != "" {
			dir = call.Dir
		}
		if call.Worktree != "" {
			root = call.Worktree
		}
	}
	if root == "" || root == string(filepath.Separator) {
		root = dir
	}
	if !filepath.IsAbs(filePath) {
		filePath = filepath.Join(dir, filePath)
	}
	filePath = filepath.Clean(filePath)
	if !within(filePath, root) {
		return nil
	}
	start := filepath.Dir(filePath)
	if info, err := os.Stat(filePath); err == nil && info.IsDir() {
		start = filePath
	}
	var levels []string
	for _, d := range paths.Down(start, root) {
		if !within(dir, d) { // d is not the working directory or above it
			levels = append(levels, d)
		}
	}
	if len(levels) == 0 {
		return nil
	}

	system := n.b.systemPaths()
	n.mu.Lock()
	defer n.mu.Unlock()
	done := n.loaded[session]
	if done == nil {
		done = map[string]bool{}
		n.loaded[session] = done
	}
	if isInstructionFile(filePath) {
		// The read shows this file in full already.
		done[realPath(filePath)] = true
	}

	var out []string
	for _, d := range levels {
		if ctx.Err() != nil {
			return out
		}
		p := n.firstInstructionFile(d)
		if p == "" {
			continue
		}
		key := realPath(p)
		if system[key] || done[key] {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			n.b.log.Warn("instructions: cannot read", "path", p, "err", err)
			continue
		}
		done[key] = true
		if strings.TrimSpace(string(data)) == "" {
			continue
		}
		out = append(out, Instruction{Source: p, Content: string(data)}.Text())
	}
	return out
}

// Forget drops what the tracker attached in a session, so the files are
// attached again on the next read. Call it when a session is deleted, and
// after a compaction has summarised the reads away.
func (n *Nested) Forget(sessionID string) {
	n.mu.Lock()
	delete(n.loaded, sessionID)
	n.mu.Unlock()
}

// Mark records paths as already attached in a session, for a session
// resumed from storage whose history holds them.
func (n *Nested) Mark(sessionID string, paths ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	done := n.loaded[sessionID]
	if done == nil {
		done = map[string]bool{}
		n.loaded[sessionID] = done
	}
	for _, p := range paths {
		done[realPath(p)] = true
	}
}

func (n *Nested) firstInstructionFile(dir string) string {
	for _, name := range projectFileNames() {
		if n.b.opts.NoClaude && name == "CLAUDE.md" {
			continue
		}
		if p := filepath.Join(dir, name); isFile(p) {
			return p
		}
	}
	return ""
}

func isInstructionFile(p string) bool {
	base := filepath.Base(p)
	for _, name := range projectFileNames() {
		if base == name {
			return true
		}
	}
	return false
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
