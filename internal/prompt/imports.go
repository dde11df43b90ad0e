package prompt

import (
	"os"
	"path/filepath"
	"strings"
)

// maxImportDepth is how many hops of @imports are followed from a
// CLAUDE.md, as Claude Code does.
const maxImportDepth = 4

// appendImports follows the @path imports of a CLAUDE.md (and of the files
// it imports), appending each imported file after the file that imports
// it. Paths resolve against the importing file's directory; "~/" starts at
// home. A reference that names no existing file (an @mention, say) is
// plain text. seen holds the real paths already in the prompt, so cycles
// and files included elsewhere are skipped. An untrusted project's files
// import nothing from outside it, and no file imports a secret file.
func (b *Builder) appendImports(out []Instruction, from, text string, depth int, seen map[string]bool) []Instruction {
	for _, ref := range importRefs(text) {
		p := b.resolveImport(ref, filepath.Dir(from))
		if p == "" || !isFile(p) {
			continue
		}
		if within(from, b.opts.Worktree) && b.escapes(p) {
			continue
		}
		if _, secret := b.opts.Secrets.Match(b.opts.Worktree, p); secret {
			b.log.Warn("instructions: import of a secret file left out", "path", p, "from", from)
			continue
		}
		key := realPath(p)
		if seen[key] {
			continue
		}
		if depth > maxImportDepth {
			b.log.Warn("instructions: import deeper than 4 hops ignored", "path", p, "from", from)
			continue
		}
		seen[key] = true
		data, err := os.ReadFile(p)
		if err != nil {
			b.log.Warn("instructions: cannot read", "path", p, "err", err)
			continue
		}
		if strings.TrimSpace(string(data)) != "" {
			out = append(out, Instruction{Source: p, Content: string(data)})
		}
		out = b.appendImports(out, p, string(data), depth+1, seen)
	}
	return out
}

func (b *Builder) resolveImport(ref, dir string) string {
	if rest, ok := strings.CutPrefix(ref, "~/"); ok {
		if b.opts.Home == "" {
			return ""
		}
		return filepath.Join(b.opts.Home, rest)
	}
	if filepath.IsAbs(ref) {
		return filepath.Clean(ref)
	}
	return filepath.Join(dir, ref)
}

// importRefs returns the paths written as @path in Markdown text, in
// order: an @ at the start of a line or after white space, followed by
// the path up to the next white space. Fenced code blocks and inline code
// spans are skipped; trailing punctuation is not part of the path.
func importRefs(text string) []string {
	var refs []string
	fence := ""
	for line := range strings.SplitSeq(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		line = stripCodeSpans(line)
		for i := 0; i < len(line); i++ {
			if line[i] != '@' || (i > 0 && line[i-1] != ' ' && line[i-1] != '\t') {
				continue
			}
			end := i + 1
			for end < len(line) && line[end] != ' ' && line[end] != '\t' && line[end] != '\r' {
				end++
			}
			ref := strings.TrimRight(line[i+1:end], ".,;:!?)]}\"'")
			if ref != "" {
				refs = append(refs, ref)
			}
			i = end
		}
	}
	return refs
}

// stripCodeSpans blanks out inline code spans: text between a run of
// backticks and the next run of the same length.
func stripCodeSpans(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		closeAt := strings.Index(string(b[i+n:]), strings.Repeat("`", n))
		if closeAt < 0 {
			break
		}
		end := i + n + closeAt + n
		for j := i; j < end; j++ {
			b[j] = ' '
		}
		i = end
	}
	return string(b)
}
