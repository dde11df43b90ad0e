package shellscan

import (
	"fmt"
	"path"
	"runtime"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command a shell text would run.
type Command struct {
	// Name is the program as the shell resolves it: quotes and
	// backslashes removed, braces expanded, any directory dropped. For a
	// Dynamic command it is the name as written.
	Name string `json:"name"`
	// Args are the arguments after expansion where they are known from
	// the text, as written where they are not.
	Args []string `json:"args,omitempty"`
	// Text is Name and Args, quoted where needed, then the redirections:
	// the value rules for the "bash" permission are matched against.
	Text string `json:"text"`
	// Dynamic marks a command whose program is only known at run time.
	Dynamic bool `json:"dynamic,omitempty"`
}

// PathKind says how a command uses a path.
type PathKind string

// The ways a command uses a path.
const (
	PathRead  PathKind = "read"
	PathWrite PathKind = "write"
)

// PathRef is a path a shell text names as a file argument of a file
// command (cd, cat, rm, cp, mv, mkdir, touch, chmod, ...) or as the target
// of a redirection.
type PathRef struct {
	Path string   `json:"path"`
	Kind PathKind `json:"kind"`
	// Dynamic marks a path only known at run time; Path is then the word
	// as written.
	Dynamic bool `json:"dynamic,omitempty"`
}

// Analysis is what a shell text would do, as far as the text tells.
type Analysis struct {
	// Commands are the simple commands the text would run, outermost
	// first, including those that wrappers (sudo, env, xargs, find -exec,
	// bash -c, eval, ...) start.
	Commands []Command `json:"commands"`
	// Patterns are the distinct command texts: the values to check
	// against the "bash" permission.
	Patterns []string `json:"patterns"`
	// Always are the distinct patterns an "always" reply approves: each
	// command's Arity prefix followed by " *".
	Always []string `json:"always"`
	// Paths are the file arguments and redirection targets.
	Paths []PathRef `json:"paths,omitempty"`
	// Aliases name, for commands run through a path that is a link to or
	// a copy of another program, that program (see Analyze).
	Aliases []Alias `json:"aliases,omitempty"`
	// Inline are the commands that run code of a general interpreter
	// given on their command line or in their input (python -c, perl -e,
	// python3 - <<EOF), which is not analysed.
	Inline []Inline `json:"inline,omitempty"`
	// Unanalysable is set when what the text runs cannot be known from the
	// text alone; Reason then says why, in words for the model.
	Unanalysable bool   `json:"unanalysable,omitempty"`
	Reason       string `json:"reason,omitempty"`
}

// maxDepth bounds how deeply shell texts may nest (bash -c inside eval
// inside trap ...) before the analysis gives up.
const maxDepth = 16

// AnalyzeBash parses cmd as bash and reports every simple command it would
// run. Where the program a command runs is not known from the text — a
// name from a variable or substitution, eval or source of computed text,
// text piped or redirected into a shell, aliases, a text that does not
// parse — the analysis is Unanalysable, and permission checks treat it as
// matching every deny rule of "bash" and never approve it automatically.
func AnalyzeBash(cmd string) Analysis { return AnalyzeShell(cmd, "bash") }

// AnalyzeShell is AnalyzeBash for a text run by the shell program shell
// (a name or path such as "/bin/zsh"): zsh and mksh texts are parsed in
// their own syntax, those of the other POSIX shells (sh, dash, ksh, …) as
// bash, and those of fish or a program not known as a POSIX shell (csh,
// nu, pwsh, …) are not analysed.
func AnalyzeShell(cmd, shell string) Analysis { return Analyze(cmd, AnalyzeOptions{Shell: shell}) }

func newAnalyzer() *analyzer {
	return &analyzer{
		printer:  syntax.NewPrinter(syntax.SingleLine(true)),
		patterns: make(map[string]bool),
		always:   make(map[string]bool),
		vars:     newVarFacts(),
		cfg:      &expand.Config{Env: expand.FuncEnviron(keepTilde)},
	}
}

// run analyses cmd as a text of the shell program shell.
func (z *analyzer) run(cmd, shell string) {
	if prog := programName(shell); shells[prog] {
		z.shellText(prog, field{val: cmd}, runCtx{})
	} else {
		z.fail("the configured shell %s is not a POSIX shell whose syntax is analysed", prog)
	}
}

// keepTilde makes tilde expansion a no-op: "~" and "~user" stay as
// written, since the analysis must not depend on the machine's users.
func keepTilde(name string) string {
	if user, ok := strings.CutPrefix(name, "HOME"); ok {
		return "~" + strings.TrimPrefix(user, " ")
	}
	return ""
}

type analyzer struct {
	out      Analysis
	printer  *syntax.Printer
	cfg      *expand.Config
	patterns map[string]bool
	always   map[string]bool
	reasons  []string
	depth    int
	words    int // fields expanded so far, bounded by maxWords
	vars     *varFacts
	current  string // the pattern of the command being followed

	// resolving is set when programs run through paths are resolved
	// (see Analyze); progs are those commands, dirs the directories cd
	// and friends change to, dirUnknown set when one is only known at run
	// time.
	resolving  bool
	progs      []progRef
	dirs       []string
	dirUnknown bool
}

// maxWords bounds the words a text may expand to (brace expansion grows
// fast) before the analysis gives up.
const maxWords = 1 << 16

// fail records why the text cannot be analysed.
func (z *analyzer) fail(format string, args ...any) {
	r := fmt.Sprintf(format, args...)
	for _, have := range z.reasons {
		if have == r {
			return
		}
	}
	z.reasons = append(z.reasons, r)
}

// text analyses one shell text: the whole command, or the text of a
// bash -c, eval or trap inside it.
func (z *analyzer) text(src string) { z.textIn(src, syntax.LangBash) }

// textIn analyses a shell text written in the language lang.
func (z *analyzer) textIn(src string, lang syntax.LangVariant) {
	if z.depth >= maxDepth {
		z.fail("shells and eval nest more than %d levels deep", maxDepth)
		return
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
	if err != nil {
		z.fail("the text does not parse as a bash command (%v)", err)
		return
	}
	if z.hidesLine(src, lang) {
		return
	}
	z.depth++
	defer func() { z.depth-- }()
	z.vars.scan(f)
	syntax.Walk(f, z.visit)
}

func (z *analyzer) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		z.redirects(n.Redirs)
		switch c := n.Cmd.(type) {
		case *syntax.CallExpr:
			if len(c.Args) > 0 {
				z.command(z.fields(c.Args), z.redirText(n.Redirs), runCtx{})
			}
		case *syntax.DeclClause:
			z.decl(c)
		}
	case *syntax.Assign:
		if n.Name != nil {
			z.checkEnvName(n.Name.Value)
			if n.Value != nil && n.Array == nil && n.Index == nil {
				if fs := z.fields([]*syntax.Word{n.Value}); len(fs) == 1 {
					z.envValue(n.Name.Value, fs[0], runCtx{})
				}
			}
			if !z.vars.assoc[n.Name.Value] {
				z.arithm(n.Index)
				if n.Array != nil {
					for _, e := range n.Array.Elems {
						z.arithm(e.Index)
					}
				}
			}
		}
	case *syntax.ParamExp:
		z.param(n)
	case *syntax.ArithmExp:
		z.arithm(n.X)
	case *syntax.ArithmCmd:
		z.arithm(n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			z.letExpr(x)
		}
	case *syntax.CStyleLoop:
		z.arithm(n.Init)
		z.arithm(n.Cond)
		z.arithm(n.Post)
	case *syntax.TestClause:
		z.test(n.X)
	}
	return true
}

// field is one word of a command after expansion.
type field struct {
	val string // the expanded value, when known
	src string // the word as written
	// unknown marks a value only known at run time: a parameter,
	// substitution or arithmetic, or a glob that may match any files.
	unknown bool
	// lead is the literal text the word starts with, which run-time
	// expansion cannot change.
	lead string
	// quoted marks a word written as one double-quoted string: however
	// it expands, it stays one word.
	quoted bool
}

// fields expands words as the shell would, as far as the text allows:
// brace expansion, quote removal and $'…' escapes. Words with run-time
// parts become one unknown field each.
func (z *analyzer) fields(words []*syntax.Word) []field {
	var out []field
	for _, w := range words {
		src := z.print(w)
		dyn, glob, lead := wordKind(w.Parts, false)
		if dyn {
			_, quoted := w.Parts[0].(*syntax.DblQuoted)
			out = append(out, field{src: src, unknown: true, lead: lead, quoted: quoted && len(w.Parts) == 1})
			continue
		}
		vals, err := expand.Fields(z.cfg, w)
		if err == nil && z.words+len(vals) > maxWords {
			err = fmt.Errorf("the command expands to more than %d words", maxWords)
		}
		z.words += len(vals)
		if err != nil {
			z.fail("the word %s cannot be expanded (%v)", src, err)
			out = append(out, field{src: src, unknown: true})
			continue
		}
		for _, v := range vals {
			out = append(out, field{val: v, src: src, unknown: glob, lead: lead})
		}
	}
	return out
}

// wordKind reports whether word parts hold anything only known at run
// time, whether they hold an unquoted glob, and the literal text they
// start with.
func wordKind(parts []syntax.WordPart, quoted bool) (dynamic, glob bool, lead string) {
	leading := true
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !quoted && hasGlob(p.Value) {
				glob = true
			}
			if leading {
				lead += p.Value
			}
		case *syntax.SglQuoted:
			if leading && !p.Dollar {
				lead += p.Value
			}
		case *syntax.DblQuoted:
			d, _, l := wordKind(p.Parts, true)
			if leading {
				lead += l
			}
			if d {
				dynamic = true
				leading = false
			}
		case *syntax.ExtGlob:
			glob = true
			leading = false
		default: // ParamExp, CmdSubst, ArithmExp, ProcSubst
			dynamic = true
			leading = false
		}
	}
	return dynamic, glob, lead
}

// hasGlob reports whether an unquoted literal holds an unescaped glob
// character: '*', '?', or a '[' closed later by ']'.
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

func (z *analyzer) print(n syntax.Node) string {
	var b strings.Builder
	if err := z.printer.Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

// display is how a field appears in a command's text: its value quoted
// where the shell would need quotes, or the word as written when the value
// is only known at run time.
func (f field) display() string {
	if f.unknown {
		if f.val != "" {
			return f.val // a glob: show it as the shell sees it
		}
		return f.src
	}
	return quote(f.val)
}

// quote quotes s for the shell unless it is made only of characters that
// need no quoting.
func quote(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_@%+=:,./~^-", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	if q, err := syntax.Quote(s, syntax.LangBash); err == nil {
		return q
	}
	return s
}

// runCtx is what the caller of a command knows about how it runs.
type runCtx struct {
	// trailing marks a command xargs starts: more arguments, unknown
	// until run time, follow the ones written.
	trailing bool
	// redirs is the command's redirections, for the patterns of other
	// forms it is judged as (git push for git --no-pager push).
	redirs string
}

// command records one simple command and follows what it runs in turn.
func (z *analyzer) command(words []field, redirs string, ctx runCtx) {
	if len(words) == 0 {
		if ctx.trailing {
			z.fail("xargs reads the program to run from its input")
		}
		return
	}
	name := words[0]
	if name.unknown {
		z.add(Command{Name: name.src, Args: values(words[1:]), Text: joinDisplay(words) + redirs, Dynamic: true}, nil)
		z.fail("the program name %s is only known when the command runs", name.src)
		return
	}
	prog := programName(name.val)
	args := words[1:]
	tokens := append([]string{prog}, values(args)...)
	text := prog
	if len(args) > 0 {
		text += " " + joinDisplay(args)
	}
	z.add(Command{Name: prog, Args: tokens[1:], Text: text + redirs}, tokens)
	z.noteProgram(name.val, prog, text+redirs)
	z.filePaths(prog, args)
	z.current = text + redirs
	ctx.redirs = redirs
	z.follow(prog, args, ctx)
}

// programName is the name a command word runs: the last element of a
// path. Where file names ignore case (macOS, Windows) it is lower-cased,
// and on Windows an executable's extension is dropped, since TOUCH or
// touch.exe run touch there.
func programName(word string) string {
	// zsh expands =name to the program's path.
	if w := strings.TrimLeft(word, "="); w != "" {
		word = w
	}
	if strings.Contains(word, "/") && strings.Trim(word, "/") != "" {
		word = path.Base(word)
	}
	switch runtime.GOOS {
	case "windows":
		word = strings.ToLower(word)
		for _, ext := range []string{".exe", ".com", ".bat", ".cmd"} {
			if w, ok := strings.CutSuffix(word, ext); ok && w != "" {
				return w
			}
		}
	case "darwin", "ios":
		word = strings.ToLower(word)
	}
	return word
}

func values(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		if f.unknown && f.val == "" {
			out[i] = f.src
		} else {
			out[i] = f.val
		}
	}
	return out
}

func joinDisplay(fs []field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.display()
	}
	return strings.Join(parts, " ")
}

func (z *analyzer) add(c Command, tokens []string) {
	z.out.Commands = append(z.out.Commands, c)
	if !z.patterns[c.Text] {
		z.patterns[c.Text] = true
		z.out.Patterns = append(z.out.Patterns, c.Text)
	}
	if tokens == nil {
		return
	}
	if a := AlwaysPattern(tokens); !z.always[a] {
		z.always[a] = true
		z.out.Always = append(z.out.Always, a)
	}
}

// redirText is the normalised text of a statement's redirections, with a
// leading space, for the command's pattern.
func (z *analyzer) redirText(rs []*syntax.Redirect) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteByte(' ')
		if r.N != nil {
			b.WriteString(r.N.Value)
		}
		b.WriteString(r.Op.String())
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			b.WriteString(z.print(r.Word))
			continue
		case syntax.DplIn, syntax.DplOut:
		default:
			b.WriteByte(' ')
		}
		fs := z.fields([]*syntax.Word{r.Word})
		if len(fs) == 1 {
			b.WriteString(fs[0].display())
		} else {
			b.WriteString(z.print(r.Word))
		}
	}
	return b.String()
}

// redirects records the files redirections read and write.
func (z *analyzer) redirects(rs []*syntax.Redirect) {
	for _, r := range rs {
		var kind PathKind
		switch r.Op {
		case syntax.RdrIn:
			kind = PathRead
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
			kind = PathWrite
		case syntax.DplOut, syntax.DplIn:
			// ">&file" writes a file; ">&2" and ">&-" duplicate or close.
			fs := z.fields([]*syntax.Word{r.Word})
			if len(fs) != 1 || isFD(fs[0].val) {
				continue
			}
			kind = PathWrite
		default:
			continue
		}
		for _, f := range z.fields([]*syntax.Word{r.Word}) {
			z.addPath(f, kind)
		}
	}
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// pseudoFiles are paths a command may name that are not files of any
// directory: writing them touches nothing on disk.
var pseudoFiles = map[string]bool{
	"/dev/null": true, "/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true,
	"/dev/tty": true, "/dev/zero": true, "/dev/random": true, "/dev/urandom": true,
}

func (z *analyzer) addPath(f field, kind PathKind) {
	if f.unknown && f.val == "" {
		z.out.Paths = append(z.out.Paths, PathRef{Path: f.src, Kind: kind, Dynamic: true})
		return
	}
	if f.val == "" || pseudoFiles[f.val] || strings.HasPrefix(f.val, "/dev/fd/") {
		return
	}
	z.out.Paths = append(z.out.Paths, PathRef{Path: f.val, Kind: kind, Dynamic: f.unknown})
}

// fileCommands maps the commands whose operands are paths to how they use
// them, and how many leading operands are not paths (chmod's mode).
var fileCommands = map[string]struct {
	kind PathKind
	skip int
}{
	"cd": {PathRead, 0}, "cat": {PathRead, 0}, "head": {PathRead, 0}, "tail": {PathRead, 0},
	"less": {PathRead, 0}, "more": {PathRead, 0}, "ls": {PathRead, 0}, "source": {PathRead, 0},
	".": {PathRead, 0}, "rm": {PathWrite, 0}, "rmdir": {PathWrite, 0}, "cp": {PathWrite, 0},
	"mv": {PathWrite, 0}, "mkdir": {PathWrite, 0}, "touch": {PathWrite, 0}, "ln": {PathWrite, 0},
	"tee": {PathWrite, 0}, "truncate": {PathWrite, 0}, "chmod": {PathWrite, 1},
	"chown": {PathWrite, 1}, "chgrp": {PathWrite, 1},
}

// filePaths records the path operands of a file command.
func (z *analyzer) filePaths(prog string, args []field) {
	fc, ok := fileCommands[prog]
	if !ok {
		return
	}
	if prog == "source" || prog == "." {
		if len(args) > 0 {
			z.addPath(args[0], fc.kind)
		}
		return
	}
	skip, options := fc.skip, true
	targetNext := false // the previous word was -t or --target-directory
	for _, a := range args {
		if targetNext {
			targetNext = false
			z.addPath(a, fc.kind)
			continue
		}
		if options && !a.unknown {
			if a.val == "--" {
				options = false
				continue
			}
			if dir, next, ok := targetOption(prog, a.val); ok {
				if next {
					targetNext = true
				} else {
					z.addPath(field{val: dir}, fc.kind)
				}
				continue
			}
			if strings.HasPrefix(a.val, "-") && a.val != "-" {
				if strings.HasPrefix(a.val, "--reference") {
					skip = 0
				}
				continue
			}
			if (prog == "chmod") && strings.HasPrefix(a.val, "+") {
				skip = 0
				continue
			}
		}
		if skip > 0 {
			skip--
			continue
		}
		z.addPath(a, fc.kind)
	}
}
