package prompt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/tool"
)

// Nested attaches the instruction files of the directories a read goes
// into: when the read tool opens a file, the AGENTS.md (or CLAUDE.md, or
// CONTEXT.md) of each directory between the file and the project root is
// returned for the read's output, unless the system prompt holds it, an
// earlier read in the history the model sees attached it (the read's
// metadata "loaded" names what it attached), or another read of the same
// assistant message claimed it. A file attached by a read whose output was
// since compacted or pruned away is attached again; a restarted process
// finds what the history holds. Make one per app beside its Builder; it is
// safe for concurrent use.
type Nested struct {
	b *Builder

	mu     sync.Mutex
	claims map[string]claim // session id → the claims of its current message
}

// claim is what the reads of one assistant message attached.
type claim struct {
	message string
	paths   map[string]bool
}

// NewNested returns a tracker that knows the system prompt's files from b.
func NewNested(b *Builder) *Nested {
	return &Nested{b: b, claims: map[string]claim{}}
}

// loadedIn returns the real paths the visible reads of the history
// attached.
func loadedIn(call *tool.Call) map[string]bool {
	out := map[string]bool{}
	if call == nil || call.Messages == nil {
		return out
	}
	for _, m := range call.Messages() {
		for _, p := range m.Parts {
			tp, ok := p.(*message.ToolPart)
			if !ok || tp.Tool != "read" || tp.State.Status != message.ToolCompleted || tp.State.Time.Compacted != 0 {
				continue
			}
			list, _ := tp.State.Metadata[tool.MetaLoaded].([]any)
			for _, v := range list {
				if s, ok := v.(string); ok {
					out[realPath(s)] = true
				}
			}
			if strs, ok := tp.State.Metadata[tool.MetaLoaded].([]string); ok {
				for _, s := range strs {
					out[realPath(s)] = true
				}
			}
		}
	}
	return out
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
	done := loadedIn(call)
	messageID := ""
	if call != nil {
		messageID = call.MessageID
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	cl := n.claims[session]
	if cl.message != messageID || cl.paths == nil {
		cl = claim{message: messageID, paths: map[string]bool{}}
		n.claims[session] = cl
	}
	if isInstructionFile(filePath) {
		// The read shows this file in full already.
		cl.paths[realPath(filePath)] = true
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
		if system[key] || done[key] || cl.paths[key] || n.b.escapes(p) {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			n.b.log.Warn("instructions: cannot read", "path", p, "err", err)
			continue
		}
		cl.paths[key] = true
		if strings.TrimSpace(string(data)) == "" {
			continue
		}
		out = append(out, Instruction{Source: p, Content: string(data)}.Text())
	}
	return out
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
