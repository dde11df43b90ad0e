package tool

import (
	"fmt"
	"regexp"
	"strings"
)

// PatchError is a patch that could not be parsed or applied, worded for the
// model.
type PatchError struct{ Msg string }

func (e *PatchError) Error() string { return e.Msg }

func patchErrorf(format string, args ...any) error {
	return &PatchError{fmt.Sprintf(format, args...)}
}

// Patch markers.
const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File: "
	patchDelete = "*** Delete File: "
	patchUpdate = "*** Update File: "
	patchMove   = "*** Move to: "
	patchEOF    = "*** End of File"
)

// patchOp is one file operation of a patch.
type patchOp struct {
	kind   byte   // 'A' add, 'D' delete, 'U' update
	path   string // as written in the patch
	moveTo string // update only: the new path
	lines  []string
	chunks []patchChunk
}

// patchChunk is one @@ section of an update.
type patchChunk struct {
	contexts []string // the @@ header lines to find first, in order
	old      []string // context and removed lines
	new      []string // context and added lines
	eof      bool     // the old lines must end the file
}

// heredocStart matches a first line such as `cat <<'EOF'` or
// `apply_patch <<"PATCH"`.
func heredocStart() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:[\w./-]+\s+)*<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)\s*$`)
}

// stripHeredoc removes a shell heredoc wrapper around a patch.
func stripHeredoc(lines []string) []string {
	if len(lines) < 2 {
		return lines
	}
	m := heredocStart().FindStringSubmatch(lines[0])
	if m == nil || m[1] != m[3] {
		return lines
	}
	last := len(lines) - 1
	if strings.TrimSpace(lines[last]) != m[2] {
		return lines
	}
	return lines[1:last]
}

// parsePatch reads a patch in the apply_patch format.
func parsePatch(text string) ([]patchOp, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	lines = stripHeredoc(lines)
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != patchBegin {
		return nil, patchErrorf("invalid patch: the first line must be %q", patchBegin)
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, patchErrorf("invalid patch: the last line must be %q", patchEnd)
	}
	p := &patchParser{lines: lines[1 : len(lines)-1], lineNo: 2}
	var ops []patchOp
	for !p.done() {
		if strings.TrimSpace(p.peek()) == "" {
			p.next()
			continue
		}
		op, err := p.op()
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, patchErrorf("invalid patch: it contains no file operations, so no files were modified")
	}
	return ops, nil
}

type patchParser struct {
	lines  []string
	i      int
	lineNo int // patch line number of lines[0]
}

func (p *patchParser) done() bool   { return p.i >= len(p.lines) }
func (p *patchParser) peek() string { return p.lines[p.i] }
func (p *patchParser) next() string { p.i++; return p.lines[p.i-1] }
func (p *patchParser) at() int      { return p.lineNo + p.i }

func (p *patchParser) op() (patchOp, error) {
	n := p.at()
	header := strings.TrimSpace(p.next())
	switch {
	case strings.HasPrefix(header, patchAdd):
		op := patchOp{kind: 'A', path: strings.TrimSpace(header[len(patchAdd):])}
		for !p.done() && strings.HasPrefix(p.peek(), "+") {
			op.lines = append(op.lines, p.next()[1:])
		}
		return op, checkPath(op.path, n)
	case strings.HasPrefix(header, patchDelete):
		op := patchOp{kind: 'D', path: strings.TrimSpace(header[len(patchDelete):])}
		return op, checkPath(op.path, n)
	case strings.HasPrefix(header, patchUpdate):
		op := patchOp{kind: 'U', path: strings.TrimSpace(header[len(patchUpdate):])}
		if err := checkPath(op.path, n); err != nil {
			return op, err
		}
		if !p.done() && strings.HasPrefix(strings.TrimSpace(p.peek()), patchMove) {
			op.moveTo = strings.TrimSpace(strings.TrimSpace(p.next())[len(patchMove):])
			if err := checkPath(op.moveTo, n+1); err != nil {
				return op, err
			}
		}
		for !p.done() {
			t := strings.TrimSpace(p.peek())
			if t == "" && p.blankBeforeHeader() {
				p.next()
				continue
			}
			if strings.HasPrefix(t, "***") && t != patchEOF {
				break
			}
			c, err := p.chunk(len(op.chunks) == 0)
			if err != nil {
				return op, err
			}
			op.chunks = append(op.chunks, c)
		}
		if len(op.chunks) == 0 {
			return op, patchErrorf("invalid patch at line %d: update of %s has no changes (an update needs at least one @@ section)", n, op.path)
		}
		return op, nil
	}
	return patchOp{}, patchErrorf("invalid patch at line %d: %q is not a valid file operation; use %q, %q or %q", n, header,
		strings.TrimSpace(patchAdd)+" <path>", strings.TrimSpace(patchDelete)+" <path>", strings.TrimSpace(patchUpdate)+" <path>")
}

// blankBeforeHeader reports whether the blank lines from the current one
// lead to a file operation header or the end of the patch, so they separate
// operations rather than being empty context lines.
func (p *patchParser) blankBeforeHeader() bool {
	for j := p.i; j < len(p.lines); j++ {
		t := strings.TrimSpace(p.lines[j])
		if t == "" {
			continue
		}
		return strings.HasPrefix(t, "***") && t != patchEOF
	}
	return true
}

// chunk reads one @@ section. The first section of an update may leave out
// its @@ line.
func (p *patchParser) chunk(first bool) (patchChunk, error) {
	var c patchChunk
	headed := false
	for !p.done() {
		t := strings.TrimSpace(p.peek())
		if t != "@@" && !strings.HasPrefix(t, "@@ ") {
			break
		}
		p.next()
		headed = true
		if ctx := strings.TrimSpace(t[2:]); ctx != "" {
			c.contexts = append(c.contexts, ctx)
		}
	}
	if !headed && !first {
		return c, patchErrorf("invalid patch at line %d: expected an @@ line to start the next section, got %q", p.at(), p.peek())
	}
	lines := 0
	for !p.done() {
		raw := p.peek()
		t := strings.TrimSpace(raw)
		if t == patchEOF {
			p.next()
			c.eof = true
			break
		}
		if strings.HasPrefix(t, "***") || t == "@@" || strings.HasPrefix(t, "@@ ") {
			break
		}
		if raw == "" && lines > 0 && p.blankBeforeHeader() {
			break
		}
		switch {
		case raw == "":
			c.old = append(c.old, "")
			c.new = append(c.new, "")
		case raw[0] == ' ':
			c.old = append(c.old, raw[1:])
			c.new = append(c.new, raw[1:])
		case raw[0] == '-':
			c.old = append(c.old, raw[1:])
		case raw[0] == '+':
			c.new = append(c.new, raw[1:])
		default:
			if lines == 0 {
				return c, patchErrorf("invalid patch at line %d: %q is not a change line; lines of a section start with ' ' (context), '-' (remove) or '+' (add)", p.at(), raw)
			}
			return c, patchErrorf("invalid patch at line %d: %q is not a change line; lines of a section start with ' ' (context), '-' (remove) or '+' (add), and a new file operation starts with ***", p.at(), raw)
		}
		p.next()
		lines++
	}
	if lines == 0 {
		return c, patchErrorf("invalid patch at line %d: an @@ section has no lines", p.at())
	}
	return c, nil
}

func checkPath(path string, line int) error {
	if path == "" {
		return patchErrorf("invalid patch at line %d: the file path is missing", line)
	}
	return nil
}
