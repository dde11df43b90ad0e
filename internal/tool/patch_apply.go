package tool

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// patchChange is the planned effect of a patch on one file.
type patchChange struct {
	kind   byte   // 'A' added, 'M' modified (or moved), 'D' deleted
	path   string // absolute path the operation names
	dest   string // absolute path written (path, or the move target)
	before string // content before ("" for an added file)
	after  string // content after ("" for a deleted file)
	mode   fs.FileMode
}

// patchPlan is a patch worked out in memory: the final state of every file
// it touches, computed before anything is written.
type patchPlan struct {
	changes []patchChange
	files   map[string]*planFile // by absolute path: the state after the operations so far
	read    func(path string) ([]byte, error)
}

type planFile struct {
	exists  bool
	content string
	mode    fs.FileMode
}

// planPatch checks every operation of ops against the files under base and
// computes the result, reading the files' content with read (nil: from the
// disk). It writes nothing; an error means no operation can be applied.
func planPatch(base string, ops []patchOp, read func(path string) ([]byte, error)) (*patchPlan, error) {
	if read == nil {
		read = readRegular
	}
	pl := &patchPlan{files: map[string]*planFile{}, read: read}
	for _, op := range ops {
		path := absPath(base, op.path)
		switch op.kind {
		case 'A':
			if err := pl.notDir(path, op.path); err != nil {
				return nil, err
			}
			before, _ := pl.current(path)
			content := ""
			if len(op.lines) > 0 {
				content = strings.Join(op.lines, "\n") + "\n"
			}
			pl.set(path, content)
			pl.changes = append(pl.changes, patchChange{kind: 'A', path: path, dest: path, before: before.content, after: content})
		case 'D':
			cur, err := pl.current(path)
			if err != nil {
				return nil, err
			}
			if !cur.exists {
				return nil, patchErrorf("cannot delete %s: no such file", op.path)
			}
			pl.files[path] = &planFile{}
			pl.changes = append(pl.changes, patchChange{kind: 'D', path: path, dest: path, before: cur.content})
		case 'U':
			cur, err := pl.current(path)
			if err != nil {
				return nil, err
			}
			if !cur.exists {
				return nil, patchErrorf("cannot update %s: no such file", op.path)
			}
			after, err := applyChunks(cur.content, op.chunks, op.path)
			if err != nil {
				return nil, err
			}
			dest := path
			if op.moveTo != "" {
				dest = absPath(base, op.moveTo)
				if err := pl.notDir(dest, op.moveTo); err != nil {
					return nil, err
				}
				if dest != path {
					pl.files[path] = &planFile{}
				}
			}
			pl.set(dest, after)
			pl.files[dest].mode = cur.mode
			pl.changes = append(pl.changes, patchChange{kind: 'M', path: path, dest: dest, before: cur.content, after: after, mode: cur.mode})
		}
	}
	return pl, nil
}

// current is the state of path after the operations planned so far.
func (pl *patchPlan) current(path string) (planFile, error) {
	if f, ok := pl.files[path]; ok {
		return *f, nil
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return planFile{}, nil
	}
	if err != nil {
		return planFile{}, patchErrorf("cannot read %s: %v", path, err)
	}
	if info.IsDir() {
		return planFile{}, patchErrorf("%s is a directory, not a file", path)
	}
	if !info.Mode().IsRegular() {
		return planFile{}, patchErrorf("cannot read %s: %v", path, &NotRegularError{Path: path, Mode: info.Mode()})
	}
	b, err := pl.read(path)
	if err != nil {
		return planFile{}, patchErrorf("cannot read %s: %v", path, err)
	}
	f := planFile{exists: true, content: string(b), mode: info.Mode().Perm()}
	pl.files[path] = &f
	return f, nil
}

func (pl *patchPlan) notDir(path, name string) error {
	if _, planned := pl.files[path]; planned {
		return nil
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return patchErrorf("cannot write %s: it is a directory", name)
	}
	return nil
}

func (pl *patchPlan) set(path, content string) {
	f := pl.files[path]
	if f == nil {
		f = &planFile{}
		pl.files[path] = f
	}
	f.exists, f.content = true, content
}

// targets are the paths the plan writes or removes, sorted.
func (pl *patchPlan) targets() []string {
	var out []string
	for p := range pl.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// write carries out the plan: every file that must exist is written (parent
// directories created), every file that must not is removed. Directories
// left empty stay. New contents are all staged beside their files first, so
// a write that fails (a full disk) changes nothing; each file is then
// replaced by a rename, whole.
//
// With writeText (an editor's buffers), files that must exist are handed to
// it one by one instead, before any file is removed from the disk. check is
// given, as stageFile does, each path written or removed on the disk with
// its directory's symbolic links resolved, and stops the patch when it
// returns an error.
func (pl *patchPlan) write(writeText func(path, content string) error, check func(string) error) error {
	if writeText != nil {
		return pl.writeThrough(writeText, check)
	}
	var staged []*stagedFile
	for _, p := range pl.targets() {
		f := pl.files[p]
		if !f.exists {
			continue
		}
		mode := f.mode
		if mode == 0 {
			mode = 0o644
		}
		s, err := stageFile(p, []byte(f.content), mode, check)
		if err != nil {
			for _, s := range staged {
				s.discard()
			}
			return err
		}
		staged = append(staged, s)
	}
	for _, p := range pl.targets() {
		if pl.files[p].exists {
			continue
		}
		if err := removeChecked(p, check); err != nil {
			for _, s := range staged {
				s.discard()
			}
			return err
		}
	}
	for i, s := range staged {
		if err := s.commit(); err != nil {
			for _, rest := range staged[i+1:] {
				rest.discard()
			}
			return err
		}
	}
	return nil
}

// writeThrough carries out the plan with writeText for the files that must
// exist, then removes from the disk those that must not.
func (pl *patchPlan) writeThrough(writeText func(path, content string) error, check func(string) error) error {
	for _, p := range pl.targets() {
		if f := pl.files[p]; f.exists {
			if err := writeText(p, f.content); err != nil {
				return err
			}
		}
	}
	for _, p := range pl.targets() {
		if pl.files[p].exists {
			continue
		}
		if err := removeChecked(p, check); err != nil {
			return err
		}
	}
	return nil
}

// applyChunks applies an update's sections to content. The result always
// ends with a newline; a CRLF file stays CRLF.
func applyChunks(content string, chunks []patchChunk, name string) (string, error) {
	crlf := strings.Contains(content, "\r\n")
	if crlf {
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	lines := strings.Split(content, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	type repl struct {
		at, n int
		with  []string
	}
	var repls []repl
	at := 0
	for _, c := range chunks {
		for _, ctx := range c.contexts {
			i := seekLines(lines, []string{ctx}, at, false)
			if i < 0 {
				return "", patchErrorf("cannot update %s: the @@ line %q was not found in the file (after line %d)", name, ctx, at)
			}
			at = i + 1
		}
		if len(c.old) == 0 {
			pos := len(lines)
			if len(c.contexts) > 0 {
				pos = at
			}
			repls = append(repls, repl{pos, 0, c.new})
			at = pos
			continue
		}
		old, with := c.old, c.new
		i := seekLines(lines, old, at, c.eof)
		if i < 0 && old[len(old)-1] == "" {
			old = old[:len(old)-1]
			if len(with) > 0 && with[len(with)-1] == "" {
				with = with[:len(with)-1]
			}
			if len(old) > 0 {
				i = seekLines(lines, old, at, c.eof)
			}
		}
		if i < 0 {
			where := ""
			if c.eof {
				where = " at the end of the file"
			}
			return "", patchErrorf("cannot update %s: these lines were not found%s (they must match the file, in order after any earlier section):\n%s",
				name, where, strings.Join(c.old, "\n"))
		}
		repls = append(repls, repl{i, len(old), with})
		at = i + len(old)
	}
	slices.SortStableFunc(repls, func(a, b repl) int { return a.at - b.at })
	for k := len(repls) - 1; k >= 0; k-- {
		r := repls[k]
		lines = slices.Replace(lines, r.at, r.at+r.n, r.with...)
	}
	out := strings.Join(lines, "\n") + "\n"
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out, nil
}

// seekLines finds pattern in lines at or after start, trying exact
// equality first, then ignoring trailing whitespace, then surrounding
// whitespace, then typographic punctuation. With eof the pattern must end
// the file. It returns -1 when there is no match.
func seekLines(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	if len(pattern) > len(lines) {
		return -1
	}
	from, to := start, len(lines)-len(pattern)
	if eof {
		from = max(to, start) // the end of the file, but not before start
	}
	if from < 0 || from > to {
		return -1
	}
	passes := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r\f\v") },
		strings.TrimSpace,
		func(s string) string { return strings.TrimSpace(normalizePunct(s)) },
	}
	for _, norm := range passes {
		for i := from; i <= to; i++ {
			ok := true
			for j, want := range pattern {
				if norm(lines[i+j]) != norm(want) {
					ok = false
					break
				}
			}
			if ok {
				return i
			}
		}
	}
	return -1
}

// normalizePunct maps typographic dashes, quotes and spaces to ASCII.
func normalizePunct(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, s)
}
