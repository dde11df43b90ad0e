package shellscan

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wrapper describes a program that runs another program named by its
// arguments: its options, the operands before the command, and the options
// that change what runs.
type wrapper struct {
	argShort string   // short options that take a value
	argLong  []string // long options that take a value (--name value)
	// noRunShort and noRunLong are options after which no command runs.
	noRunShort string
	noRunLong  []string
	// textShort and textLong are options whose value is shell text run
	// by a shell (su -c, flock -c, env -S).
	textShort string
	textLong  []string
	// viaShell are short options that make the command run through a
	// shell (sudo -s): the remaining words are then joined as shell text.
	viaShell string
	// operands is how many operands precede the command (timeout's
	// duration, chroot's directory).
	operands int
	// assigns allows NAME=VALUE words before the command.
	assigns bool
	// dashOption makes a lone "-" an option rather than the command.
	dashOption bool
	// shellIfEmpty marks wrappers that start a shell reading its input
	// when no command is given.
	shellIfEmpty bool
}

// wrappers are the programs that run a command given in their arguments.
// The table is read only.
var wrappers = map[string]wrapper{
	"env": {argShort: "uCS", argLong: []string{"unset", "chdir"}, textShort: "S", textLong: []string{"split-string"},
		assigns: true, dashOption: true, noRunLong: []string{"help", "version"}},
	"sudo": {argShort: "CDgpRrTtUuh", argLong: []string{"user", "group", "chdir", "prompt", "role", "type",
		"other-user", "command-timeout", "close-from", "chroot", "host"},
		noRunShort: "elvVK", noRunLong: []string{"edit", "list", "validate", "version", "remove-timestamp", "help"},
		viaShell: "si", assigns: true},
	"doas":    {argShort: "uC", viaShell: "s"},
	"timeout": {argShort: "ks", argLong: []string{"kill-after", "signal"}, operands: 1, noRunLong: []string{"help", "version"}},
	"nice":    {argShort: "n", argLong: []string{"adjustment"}, noRunLong: []string{"help", "version"}},
	"nohup":   {noRunLong: []string{"help", "version"}},
	"setsid":  {noRunLong: []string{"help", "version"}},
	"stdbuf":  {argShort: "ioe", argLong: []string{"input", "output", "error"}, noRunLong: []string{"help", "version"}},
	"time":    {argShort: "fo", argLong: []string{"format", "output"}, noRunLong: []string{"help", "version"}},
	"chroot":  {argLong: []string{"userspec", "groups"}, operands: 1, shellIfEmpty: true, noRunLong: []string{"help", "version"}},
	"flock": {argShort: "wE", argLong: []string{"timeout", "wait", "conflict-exit-code"}, textShort: "c", textLong: []string{"command"},
		operands: 1, noRunLong: []string{"help", "version"}},
	"taskset":  {noRunShort: "p", noRunLong: []string{"pid", "help", "version"}, operands: 1},
	"chrt":     {argShort: "TPD", argLong: []string{"sched-runtime", "sched-period", "sched-deadline"}, noRunShort: "p", noRunLong: []string{"pid", "help", "version"}, operands: 1},
	"unbuffer": {},
	"exec":     {argShort: "a"},
	"command":  {noRunShort: "vV"},
	"builtin":  {},
	"busybox":  {noRunLong: []string{"help", "list", "list-full", "install"}},
	"toybox":   {noRunLong: []string{"help", "long"}},
}

// shells are the programs that run shell text given with -c or read it
// from a script or their input.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "rbash": true, "fish": true,
}

// follow analyses what a command runs in turn: the command a wrapper
// starts, the text eval or a shell runs, trap handlers.
func (z *analyzer) follow(prog string, args []field, ctx runCtx) {
	switch {
	case shells[prog]:
		z.shell(prog, args, ctx)
		return
	case prog == "eval":
		z.eval(args, ctx)
		return
	}
	if l, ok := launchers[prog]; ok {
		z.launch(prog, l, args, ctx)
		return
	}
	if opaqueLaunchers[prog] {
		z.opaque(prog, args)
		return
	}
	if w, ok := wrappers[prog]; ok {
		z.wrapped(prog, w, args, ctx)
		return
	}
	switch prog {
	case "npm", "npx":
		z.npm(prog, args, ctx)
	case "pnpm", "pnpx":
		z.pnpm(prog, args, ctx)
	case "yarn", "yarnpkg", "bunx", "bun":
		z.yarnLike(strings.TrimSuffix(prog, "pkg"), args, ctx)
	}
	if z.interpreter(prog, args, ctx) {
		return
	}
	if z.codeProgram(prog, args, ctx) {
		return
	}
	switch prog {
	case "source", ".":
		switch {
		case len(args) == 0 && ctx.trailing, len(args) > 0 && args[0].unknown:
			z.fail("%s runs a file whose name is only known when the command runs", prog)
		case len(args) > 0 && readsInput(args[0].val):
			z.fail("%s runs commands read from its input", prog)
		}
	case "alias":
		if len(args) > 0 || ctx.trailing {
			z.fail("alias changes what a command name runs")
		}
	case "hash":
		if hasShortOption(args, 'p') || ctx.trailing {
			z.fail("hash -p changes which program a command name runs")
		}
	case "enable":
		if hasShortOption(args, 'f') || ctx.trailing {
			z.fail("enable -f loads a new builtin command")
		}
	case "trap":
		z.trap(args, ctx)
	case "compgen":
		z.compgen(args, ctx)
	case "cd", "pushd":
		z.changeDir(args, ctx)
	case "popd":
		z.noteDir("", false)
	case "find":
		z.find(args)
	case "xargs":
		z.xargs(args)
	case "watch":
		z.watch(args, ctx)
	case "su", "runuser":
		z.su(prog, args, ctx)
	case "script":
		z.script(args, ctx)
	case "sg":
		z.sg(args, ctx)
	case "newgrp":
		z.fail("newgrp starts a shell that reads commands from its input")
	case "tmux":
		z.tmux(args, ctx)
	case "parallel":
		z.parallel(args, ctx)
	case "ip":
		z.ip(args, ctx)
	}
	z.nameArgs(prog, args)
}

// hasShortOption reports whether any option word among args holds the
// short option c.
func hasShortOption(args []field, c byte) bool {
	for _, a := range args {
		if a.unknown {
			return true
		}
		if strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.IndexByte(a.val[1:], c) >= 0 {
			return true
		}
	}
	return false
}

// readsInput reports whether a script path names the standard input.
func readsInput(p string) bool {
	return p == "-" || p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") ||
		(strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"))
}

// unknownBefore reports a wrapper argument only known at run time, which
// could name any program.
func (z *analyzer) unknownBefore(prog string, f field) {
	z.fail("the arguments of %s include %s, which is only known when the command runs, so the program it starts cannot be known", prog, f.src)
}

// wrapped follows the command a wrapper runs.
func (z *analyzer) wrapped(prog string, w wrapper, args []field, ctx runCtx) {
	i := 0
	var texts []field
	viaShell := false
options:
	for i < len(args) {
		a := args[i]
		if a.unknown {
			z.unknownBefore(prog, a)
			return
		}
		v := a.val
		switch {
		case v == "--":
			i++
			break options
		case v == "-" && w.dashOption:
			i++
		case strings.HasPrefix(v, "--") && len(v) > 2:
			name, _, hasValue := strings.Cut(v[2:], "=")
			if slices.Contains(w.noRunLong, name) {
				return
			}
			takes := slices.Contains(w.argLong, name)
			isText := slices.Contains(w.textLong, name)
			if name == "chdir" {
				if dir, ok := strings.CutPrefix(v, "--chdir="); ok {
					z.noteDir(dir, true)
				} else if i+1 < len(args) {
					z.noteDir(args[i+1].val, !args[i+1].unknown)
				}
			}
			i++
			if (takes || isText) && !hasValue {
				if i >= len(args) {
					return
				}
				if args[i].unknown {
					z.unknownBefore(prog, args[i])
					return
				}
				if isText {
					texts = append(texts, args[i])
				}
				i++
			} else if isText {
				texts = append(texts, field{val: v[strings.IndexByte(v, '=')+1:], src: a.src})
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			i++
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte(w.noRunShort, c) >= 0 {
					return
				}
				if strings.IndexByte(w.viaShell, c) >= 0 {
					viaShell = true
				}
				if strings.IndexByte(w.argShort, c) < 0 && strings.IndexByte(w.textShort, c) < 0 {
					continue
				}
				value := field{val: v[j+1:], src: a.src}
				if j+1 == len(v) {
					if i >= len(args) {
						return
					}
					value = args[i]
					i++
					if value.unknown {
						z.unknownBefore(prog, value)
						return
					}
				}
				if strings.IndexByte(w.textShort, c) >= 0 {
					texts = append(texts, value)
				}
				if (prog == "env" && c == 'C') || (prog == "sudo" && c == 'D') {
					z.noteDir(value.val, !value.unknown)
				}
				break
			}
		default:
			break options
		}
	}
	if prog == "chroot" {
		z.noteDir("", false) // paths are then resolved in another root
	}
	for k := 0; k < w.operands; k++ {
		if i >= len(args) {
			return
		}
		if args[i].unknown {
			z.unknownBefore(prog, args[i])
			return
		}
		i++
	}
	if prog == "flock" && i < len(args) && !args[i].unknown && (args[i].val == "-c" || args[i].val == "--command") {
		if i+1 < len(args) {
			texts = append(texts, args[i+1])
		}
		i = len(args)
	}
	for w.assigns && i < len(args) && !args[i].unknown && isAssignment(args[i].val) {
		name, value, _ := strings.Cut(args[i].val, "=")
		z.checkEnvName(name)
		z.envValue(name, field{val: value, src: args[i].src}, ctx)
		i++
	}
	rest := args[i:]
	if len(texts) > 0 {
		// The text runs first (env -S splits it into the command's
		// first words; su and flock run it with a shell).
		var b strings.Builder
		for _, t := range texts {
			b.WriteString(t.val)
			b.WriteByte(' ')
		}
		if prog == "env" {
			for _, r := range rest {
				if r.unknown {
					z.unknownBefore(prog, r)
					return
				}
				b.WriteString(r.display())
				b.WriteByte(' ')
			}
			rest = nil
		}
		z.shellText(prog, field{val: b.String(), src: texts[0].src}, ctx)
		if prog != "env" {
			return
		}
	}
	if viaShell {
		if len(rest) == 0 {
			z.fail("%s starts a shell that reads commands from its input", prog)
			return
		}
		var b strings.Builder
		for _, r := range rest {
			if r.unknown {
				z.unknownBefore(prog, r)
				return
			}
			b.WriteString(r.val)
			b.WriteByte(' ')
		}
		z.shellText(prog, field{val: b.String(), src: b.String()}, ctx)
		return
	}
	if len(rest) == 0 {
		if w.shellIfEmpty {
			z.fail("%s without a command starts a shell that reads commands from its input", prog)
		} else if ctx.trailing {
			z.fail("%s run by xargs takes the program to run from the input of xargs", prog)
		}
		return
	}
	z.command(rest, "", ctx)
}

// isAssignment reports whether env (or sudo) takes a word as NAME=VALUE:
// any word with an '=' after its first character.
func isAssignment(s string) bool {
	return strings.IndexByte(s, '=') > 0
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// shellText analyses text a program runs with a shell.
func (z *analyzer) shellText(prog string, text field, ctx runCtx) {
	if text.unknown {
		z.fail("%s runs the text %s, which is only known when the command runs", prog, text.src)
		return
	}
	switch prog {
	case "zsh":
		z.textIn(text.val, syntax.LangZsh)
	case "mksh":
		z.textIn(text.val, syntax.LangMirBSDKorn)
	case "fish":
		z.fail("fish syntax is not analysed")
	default:
		z.text(text.val)
	}
}

// shell follows what a shell runs: the text of -c, or a script, or its
// input.
func (z *analyzer) shell(prog string, args []field, ctx runCtx) {
	i, cmdMode, stdin := 0, false, false
options:
	for i < len(args) {
		a := args[i]
		if a.unknown {
			z.unknownBefore(prog, a)
			return
		}
		v := a.val
		switch {
		case v == "--" || v == "-":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			i++
			switch v[2:] {
			case "version", "help", "dump-strings", "dump-po-strings", "pretty-print":
				return
			case "rcfile", "init-file":
				i++
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			i++
			for _, c := range v[1:] {
				switch c {
				case 'c':
					cmdMode = true
				case 's':
					stdin = true
				case 'o', 'O':
					i++
				}
			}
		default:
			break options
		}
	}
	rest := args[min(i, len(args)):]
	switch {
	case cmdMode && len(rest) == 0:
		if ctx.trailing {
			z.fail("%s -c run by xargs takes its text from the input of xargs", prog)
		}
	case cmdMode:
		z.shellText(prog, rest[0], ctx)
	case stdin || len(rest) == 0:
		z.fail("%s reads the commands to run from its input, which cannot be checked", prog)
	case rest[0].unknown:
		z.fail("%s runs a script whose name is only known when the command runs", prog)
	case readsInput(rest[0].val):
		z.fail("%s reads the commands to run from its input, which cannot be checked", prog)
	}
}

// eval analyses the text eval runs: its arguments joined by spaces.
func (z *analyzer) eval(args []field, ctx runCtx) {
	if len(args) > 0 && args[0].val == "--" && !args[0].unknown {
		args = args[1:]
	}
	if ctx.trailing {
		z.fail("eval run by xargs takes its text from the input of xargs")
		return
	}
	parts := make([]string, 0, len(args))
	for _, a := range args {
		if a.unknown {
			z.fail("eval runs %s, which is only known when the command runs", a.src)
			return
		}
		parts = append(parts, a.val)
	}
	z.text(strings.Join(parts, " "))
}

// trap analyses the handler text of trap.
func (z *analyzer) trap(args []field, ctx runCtx) {
	if ctx.trailing {
		z.fail("trap run by xargs takes its handler from the input of xargs")
		return
	}
	i := 0
	for i < len(args) && !args[i].unknown && strings.HasPrefix(args[i].val, "-") && args[i].val != "-" {
		if args[i].val == "--" {
			i++
			break
		}
		if strings.ContainsAny(args[i].val, "lpP") {
			return // listing, not setting
		}
		i++
	}
	if i >= len(args) {
		return
	}
	h := args[i]
	if h.unknown {
		z.fail("trap sets the handler %s, which is only known when the command runs", h.src)
		return
	}
	if h.val != "-" && h.val != "" {
		z.text(h.val)
	}
}

// changeDir records the directory cd or pushd changes to, for resolving
// programs run through relative paths.
func (z *analyzer) changeDir(args []field, ctx runCtx) {
	var operands []field
	for _, a := range args {
		if a.unknown || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			operands = append(operands, a)
		}
	}
	switch {
	case ctx.trailing, len(operands) > 0 && (operands[0].unknown || operands[0].val == "-" || strings.HasPrefix(operands[0].val, "+")):
		z.noteDir("", false)
	case len(operands) == 0:
		z.noteDir("~", true)
	default:
		z.noteDir(operands[0].val, true)
	}
}
