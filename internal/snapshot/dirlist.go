package snapshot

import "io/fs"

// dirList is one directory's entries as a walk reads them: the names in
// one buffer, each followed by a NUL (so that it can be handed to the
// system as it is), and an entry per name. A scanner reuses its lists from
// directory to directory, so a walk allocates nothing per file.
type dirList struct {
	names []byte
	ents  []dirEnt
}

// dirEnt is an entry of a dirList: where its name lies, its type as the
// directory says it (modeUnknown when it does not), and, once stated, its
// stat.
type dirEnt struct {
	off, n int
	typ    fs.FileMode
	st     stat
	stated bool
	keep   bool // a file the walk hands on
}

// modeUnknown is the type of an entry the directory gave no type for: it
// is stated to learn it.
const modeUnknown = fs.ModeIrregular

// reset empties l for the next directory.
func (l *dirList) reset() {
	l.names, l.ents = l.names[:0], l.ents[:0]
}

// add appends an entry named name of type typ, unless it is "." or "..".
func (l *dirList) add(name []byte, typ fs.FileMode) {
	if string(name) == "." || string(name) == ".." {
		return
	}
	l.ents = append(l.ents, dirEnt{off: len(l.names), n: len(name), typ: typ})
	l.names = append(append(l.names, name...), 0)
}

// name is the name of e, without its NUL.
func (l *dirList) name(e *dirEnt) []byte { return l.names[e.off : e.off+e.n] }

// has reports whether the list holds an entry named name.
func (l *dirList) has(name string) bool {
	for i := range l.ents {
		if string(l.name(&l.ents[i])) == name {
			return true
		}
	}
	return false
}
