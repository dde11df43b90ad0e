package shellscan

import "strings"

// StaticPaths are the paths of an analysis that are known from the text,
// for permission.ExternalDirs.
func (a Analysis) StaticPaths() []string {
	var out []string
	for _, p := range a.Paths {
		if !p.Dynamic {
			out = append(out, p.Path)
		} else if dir, ok := literalDir(p.Path); ok {
			out = append(out, dir)
		}
	}
	return out
}

// literalDir is the directory a path only known at run time certainly lies
// in: the part of the word before its first expansion or glob, up to the
// last slash ("/etc/$x" lies in "/etc/", "../a/b$y" in "../a/"). A word
// that starts with an expansion ("$f") tells nothing.
func literalDir(word string) (string, bool) {
	lit := word
	if i := strings.IndexAny(lit, "$`*?[{"); i >= 0 {
		lit = lit[:i]
	}
	lit = strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(lit)
	i := strings.LastIndexByte(lit, '/')
	if i < 0 {
		return "", false
	}
	return lit[:i+1], true
}

// expandHome expands "~", "~/…", "$HOME" and "$HOME/…" to home.
func expandHome(path, home string) string {
	switch {
	case path == "~" || path == "$HOME":
		return home
	case strings.HasPrefix(path, "~/"):
		return home + path[1:]
	case strings.HasPrefix(path, "$HOME/"):
		return home + path[len("$HOME"):]
	}
	return path
}

// maxLinks bounds the symbolic links followed from one path, as the
// system's own limit does.
const maxLinks = 40
