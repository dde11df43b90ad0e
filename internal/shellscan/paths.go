package shellscan

import (
	"os/user"
	"strings"
)

// StaticPaths are the paths of an analysis that are known from the text,
// for permission.ExternalDirs.
func (a Analysis) StaticPaths() []string {
	var out []string
	for _, p := range a.Paths {
		if !p.Dynamic {
			out = append(out, userHome(p.Path))
		} else if dir, ok := literalDir(knownVar(p.Path)); ok {
			out = append(out, userHome(dir))
		}
	}
	return out
}

// knownVar rewrites a word that starts with a variable whose value is known
// to be a directory, quoted or not, into a form permission.ExternalDirs
// places: "$HOME/x" and "${HOME}"/x as "~/x", "$PWD/x" as "./x", and
// "$OLDPWD/x", the directory the shell was in before, which the text does
// not tell, as "//x", so that it is asked about like the root. Other words
// are returned as they are.
func knownVar(word string) string {
	lead := ""
	if strings.HasPrefix(word, `"`) {
		lead, word = `"`, word[1:]
	}
	for name, root := range map[string]string{"HOME": "~", "PWD": ".", "OLDPWD": "/"} {
		for _, form := range []string{"$" + name, "${" + name + "}"} {
			rest, ok := strings.CutPrefix(word, form)
			if !ok || (rest != "" && isNameByte(rest[0])) {
				continue
			}
			return root + lead + rest
		}
	}
	return lead + word
}

func isNameByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// userHome expands the tilde forms the shell expands and
// permission.ExternalDirs does not: "~user/…" to that user's home directory
// (a user the system does not know stays as written, as bash leaves it),
// "~+/…" to "./…" (the working directory) and "~-/…", the directory the shell
// was in before, which the text does not tell, to "/…", so that it is
// asked about like the root. "~" and "~/…" are left to ExternalDirs.
func userHome(path string) string {
	rest, ok := strings.CutPrefix(path, "~")
	if !ok {
		return path
	}
	name, tail, _ := strings.Cut(rest, "/")
	switch {
	case name == "":
		return path
	case name[0] == '+' && name != "+":
		return "/" + tail
	case name == "+":
		return "./" + tail
	case name[0] == '-':
		return "/" + tail
	}
	u, err := user.Lookup(name)
	if err != nil || u.HomeDir == "" {
		return path
	}
	return strings.TrimSuffix(u.HomeDir, "/") + "/" + tail
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

// targetOption reads a target-directory option of cp, mv and ln (their
// destination, given before the sources): "--target-directory=DIR" and
// its abbreviations, "-tDIR", "-t" bundled after other options ("-rt",
// "-st/tmp"), each with the directory in the word or, when next is set, in
// the next one.
func targetOption(prog, word string) (dir string, next, ok bool) {
	if prog != "cp" && prog != "mv" && prog != "ln" {
		return "", false, false
	}
	if long, found := strings.CutPrefix(word, "--"); found {
		name, value, hasValue := strings.Cut(long, "=")
		if len(name) < 2 || !strings.HasPrefix("target-directory", name) {
			return "", false, false
		}
		return value, !hasValue, true
	}
	if !strings.HasPrefix(word, "-") || word == "-" {
		return "", false, false
	}
	for i := 1; i < len(word); i++ {
		switch word[i] {
		case 'S': // --suffix's value ends the word
			return "", false, false
		case 't':
			if rest := word[i+1:]; rest != "" {
				return rest, false, true
			}
			return "", true, true
		}
	}
	return "", false, false
}
