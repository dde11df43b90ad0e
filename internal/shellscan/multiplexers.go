package shellscan

import (
	"regexp"
	"slices"
	"strings"
)

// tmux and GNU parallel run shell commands given as arguments of their own
// commands.

// tmuxCommand describes a tmux command: its options, and what it does
// with its operands.
type tmuxCommand struct {
	flags, values string
	// run says what the operands are: "" nothing run, "shell" a shell
	// command, "run-shell" run-shell's command, "if" if-shell's.
	run string
}

// tmuxCommands are the tmux commands that run no code or whose code is
// analysed, by full name; any other command (send-keys, source-file,
// set-option, bind-key, ...) can run commands that cannot be checked.
var tmuxCommands = map[string]tmuxCommand{
	"new-session":     {flags: "AdDEPX", values: "cefFnstxy", run: "shell"},
	"new-window":      {flags: "abdkPS", values: "ceFnt", run: "shell"},
	"split-window":    {flags: "bdefhIPvZ", values: "celFpt", run: "shell"},
	"respawn-pane":    {flags: "k", values: "cet", run: "shell"},
	"respawn-window":  {flags: "k", values: "cet", run: "shell"},
	"display-popup":   {flags: "BCEkN", values: "bcdehsStTwxy", run: "shell"},
	"pipe-pane":       {flags: "IOo", values: "t", run: "shell"},
	"run-shell":       {flags: "bCE", values: "cdt", run: "run-shell"},
	"if-shell":        {flags: "bF", values: "t", run: "if"},
	"attach-session":  {flags: "dErx", values: "cft"},
	"detach-client":   {flags: "aP", values: "Esst"},
	"has-session":     {values: "t"},
	"kill-server":     {},
	"kill-session":    {flags: "aC", values: "t"},
	"kill-window":     {flags: "a", values: "t"},
	"kill-pane":       {flags: "a", values: "t"},
	"list-sessions":   {values: "Ff"},
	"list-windows":    {flags: "a", values: "Fft"},
	"list-panes":      {flags: "as", values: "Fft"},
	"list-clients":    {values: "Ft"},
	"list-buffers":    {values: "Ff"},
	"capture-pane":    {flags: "aACeJNpPqT", values: "bESt"},
	"select-window":   {flags: "lnpT", values: "t"},
	"select-pane":     {flags: "DdeLlMmRUZ", values: "Tt"},
	"rename-session":  {values: "t"},
	"rename-window":   {values: "t"},
	"resize-pane":     {flags: "DLMRTUZ", values: "txy"},
	"wait-for":        {flags: "LSU"},
	"start-server":    {},
	"last-window":     {values: "t"},
	"next-window":     {flags: "a", values: "t"},
	"previous-window": {flags: "a", values: "t"},
	"show-buffer":     {values: "b"},
	"delete-buffer":   {values: "b"},
}

// tmuxAliases are the short names of tmux commands.
var tmuxAliases = map[string]string{
	"new": "new-session", "neww": "new-window", "splitw": "split-window", "respawnp": "respawn-pane",
	"respawnw": "respawn-window", "popup": "display-popup", "pipep": "pipe-pane", "run": "run-shell",
	"if": "if-shell", "attach": "attach-session", "a": "attach-session", "at": "attach-session",
	"detach": "detach-client", "has": "has-session", "killw": "kill-window", "killp": "kill-pane",
	"ls": "list-sessions", "lsw": "list-windows", "lsp": "list-panes", "lsc": "list-clients",
	"lsb": "list-buffers", "capturep": "capture-pane", "selectw": "select-window", "selectp": "select-pane",
	"rename": "rename-session", "renamew": "rename-window", "resizep": "resize-pane", "wait": "wait-for",
	"start": "start-server", "last": "last-window", "next": "next-window", "prev": "previous-window",
	"showb": "show-buffer", "deleteb": "delete-buffer",
}

// tmuxNames are every tmux command, for resolving abbreviations: a
// command the table does not hold is still found, so an abbreviation is
// not taken for a safe command it is not.
var tmuxNames = []string{
	"attach-session", "bind-key", "break-pane", "capture-pane", "choose-buffer", "choose-client",
	"choose-tree", "clear-history", "clear-prompt-history", "clock-mode", "command-prompt",
	"confirm-before", "copy-mode", "customize-mode", "delete-buffer", "detach-client", "display-menu",
	"display-message", "display-panes", "display-popup", "find-window", "has-session", "if-shell",
	"join-pane", "kill-pane", "kill-server", "kill-session", "kill-window", "last-pane", "last-window",
	"link-window", "list-buffers", "list-clients", "list-commands", "list-keys", "list-panes",
	"list-sessions", "list-windows", "load-buffer", "lock-client", "lock-server", "lock-session",
	"move-pane", "move-window", "new-session", "new-window", "next-layout", "next-window", "paste-buffer",
	"pipe-pane", "previous-layout", "previous-window", "refresh-client", "rename-session",
	"rename-window", "resize-pane", "resize-window", "respawn-pane", "respawn-window", "rotate-window",
	"run-shell", "save-buffer", "select-layout", "select-pane", "select-window", "send-keys",
	"send-prefix", "server-access", "set-buffer", "set-environment", "set-hook", "set-option",
	"set-window-option", "show-buffer", "show-environment", "show-hooks", "show-messages",
	"show-options", "show-prompt-history", "show-window-options", "source-file", "split-window",
	"start-server", "suspend-client", "swap-pane", "swap-window", "switch-client", "unbind-key",
	"unlink-window", "wait-for",
}

// tmuxName resolves a tmux command as written: a full name, an alias or
// an unambiguous prefix of a full name.
func tmuxName(word string) (string, bool) {
	if full, ok := tmuxAliases[word]; ok {
		return full, true
	}
	match := ""
	for _, n := range tmuxNames {
		if n == word {
			return n, true
		}
		if strings.HasPrefix(n, word) {
			if match != "" {
				return "", false
			}
			match = n
		}
	}
	return match, match != ""
}

// tmux follows the shell commands tmux runs: -c, and those of new-session,
// new-window, split-window, respawn-*, display-popup, pipe-pane, run-shell
// and if-shell. Formats with #( ) run commands too, and the other
// commands that can run code (send-keys, source-file, set-option, ...) make
// the text unanalysable.
func (z *analyzer) tmux(args []field, ctx runCtx) {
	if ctx.trailing {
		z.fail("tmux run by xargs takes more arguments from the input of xargs, which could make it run commands")
		return
	}
	for _, a := range args {
		if a.unknown {
			z.unknownBefore("tmux", a)
			return
		}
		if strings.Contains(a.val, "#(") {
			z.fail("tmux runs the shell command of the format %s, which is not analysed", quote(a.val))
			return
		}
	}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].val, "-") && len(args[i].val) > 1 {
		v := args[i].val
		i++
		if v == "--" {
			break
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			switch {
			case c == 'V':
				return
			case strings.IndexByte("2CDhlNuv", c) >= 0:
				continue
			case strings.IndexByte("cfLST", c) >= 0:
				value := v[j+1:]
				if value == "" {
					if i >= len(args) {
						return
					}
					value = args[i].val
					i++
				}
				switch c {
				case 'c':
					z.shellText("tmux -c", field{val: value, src: value}, ctx)
					return
				case 'f':
					if value != "/dev/null" {
						z.fail("tmux -f reads a configuration file, whose commands can run any program")
						return
					}
				}
			default:
				z.fail("tmux has the option -%c, which is not known, so what it runs cannot be found", c)
				return
			}
			break
		}
	}
	// Commands are separated by ";" words (written \; or ';').
	var cmd []field
	for _, a := range args[i:] {
		if a.val == ";" {
			z.tmuxCommand(cmd, ctx)
			cmd = nil
			continue
		}
		if v, ok := strings.CutSuffix(a.val, ";"); ok && !strings.HasSuffix(v, `\`) {
			z.tmuxCommand(append(cmd, field{val: v, src: a.src}), ctx)
			cmd = nil
			continue
		}
		cmd = append(cmd, a)
	}
	if len(cmd) > 0 || i == len(args) {
		z.tmuxCommand(cmd, ctx)
	}
}

// tmuxCommand follows one tmux command; none is new-session.
func (z *analyzer) tmuxCommand(words []field, ctx runCtx) {
	if len(words) == 0 {
		return
	}
	name, ok := tmuxName(words[0].val)
	spec, known := tmuxCommands[name]
	if !ok || !known {
		z.fail("tmux %s can run commands that are not analysed", words[0].val)
		return
	}
	args := words[1:]
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].val, "-") && len(args[i].val) > 1 {
		v := args[i].val
		i++
		if v == "--" {
			break
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(spec.flags, c) >= 0 {
				if name == "run-shell" && c == 'C' {
					z.fail("tmux run-shell -C runs tmux commands that are not analysed")
					return
				}
				continue
			}
			if strings.IndexByte(spec.values, c) < 0 {
				z.fail("tmux %s has the option -%c, which is not known, so what it runs cannot be found", name, c)
				return
			}
			value := field{val: v[j+1:], src: args[i-1].src}
			if value.val == "" {
				if i >= len(args) {
					return
				}
				value = args[i]
				i++
			}
			if c == 'e' && spec.run == "shell" {
				if n, val, ok := strings.Cut(value.val, "="); ok {
					z.checkEnvName(n)
					z.envValue(n, field{val: val, src: value.src}, ctx)
				}
			}
			break
		}
	}
	rest := args[i:]
	switch {
	case len(rest) == 0 || spec.run == "":
	case spec.run == "if":
		z.shellText("tmux "+name, rest[0], ctx)
		if len(rest) > 1 {
			z.fail("tmux if-shell runs tmux commands that are not analysed")
		}
	case len(rest) == 1:
		z.shellText("tmux "+name, rest[0], ctx)
	default:
		// Several words run directly (tmux 3) or joined by a shell.
		z.command(rest, "", ctx)
		z.joinedText("tmux "+name, rest, ctx)
	}
}

// parallelSpec are the options of GNU parallel that are analysed; any
// other option makes the text unanalysable.
var parallelSpec = launcher{flags: "kvtq0XmurphV", values: "jPnNLaEdCSI", optional: "l", long: with(longFlags(
	"keep-order", "verbose", "dry-run", "dryrun", "quote", "null", "xargs", "ungroup", "group", "line-buffer",
	"lb", "linebuffer", "will-cite", "bar", "eta", "progress", "no-notice", "silent", "tag", "shuf",
	"no-run-if-empty", "pipe", "spreadstdin", "halt-on-error", "citation", "version", "help", "gnu",
	"resume", "resume-failed", "fg", "bg", "plus", "nonall", "onall", "semaphore", "keep", "round-robin",
	"roundrobin"), 1,
	"jobs", "max-args", "max-lines", "arg-file", "delimiter", "eof", "colsep", "sshlogin", "halt", "timeout",
	"delay", "joblog", "results", "res", "tmpdir", "retries", "tagstring", "tag-string", "memfree", "load",
	"workdir", "wd", "basefile", "return", "transfer", "block", "recend", "recstart", "header", "id",
	"sshdelay", "env", "max-procs", "max-replace-args", "block-size", "replace"),
	noRun: []string{"-h", "-V", "--help", "--version", "--citation"}}

// parallelRepl matches parallel's replacement strings ({}, {.}, {/},
// {//}, {/.}, {#}, {%}, {2}, and those of --plus).
var parallelRepl = regexp.MustCompile(`\{[-+0-9./#%a-z]*\}`)

// parallel follows the command GNU parallel runs for each input: its
// words joined and run by a shell, with the replacement strings (or the
// input appended) only known at run time.
func (z *analyzer) parallel(args []field, ctx runCtx) {
	l := parallelSpec
	i, quoted, repl := 0, false, ""
	for i < len(args) {
		a := args[i]
		if a.unknown {
			z.unknownBefore("parallel", a)
			return
		}
		v := a.val
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") || len(v) == 1 {
			break
		}
		i++
		var name, value string
		if strings.HasPrefix(v, "--") {
			n, val, has := strings.Cut(v[2:], "=")
			full, count, ok := longOption(l, n)
			if !ok {
				z.fail("parallel has the option %s, which is not analysed", quote(v))
				return
			}
			name, value = "--"+full, val
			if !has && count > 0 {
				if i >= len(args) {
					return
				}
				value = args[i].val
				i++
			}
		} else {
			for j := 1; j < len(v); j++ {
				c := v[j]
				name = "-" + string(c)
				switch {
				case strings.IndexByte(l.values, c) >= 0:
					value = v[j+1:]
					if value == "" {
						if i >= len(args) {
							return
						}
						value = args[i].val
						i++
					}
				case strings.IndexByte(l.optional, c) >= 0:
					value = v[j+1:]
				case strings.IndexByte(l.flags, c) >= 0:
					if c == 'q' {
						quoted = true
					}
					if c == 'h' || c == 'V' {
						return
					}
					continue
				default:
					z.fail("parallel has the option -%c, which is not analysed", c)
					return
				}
				break
			}
		}
		switch {
		case slices.Contains(l.noRun, name):
			return
		case name == "-q" || name == "--quote":
			quoted = true
		case name == "-I" || name == "--replace":
			repl = value
			if repl == "" {
				repl = "{}"
			}
		}
	}
	var words []field
	for _, a := range args[i:] {
		if !a.unknown && (a.val == ":::" || a.val == ":::+" || strings.HasPrefix(a.val, "::::")) {
			break
		}
		words = append(words, a)
	}
	if len(words) == 0 {
		z.fail("parallel runs commands read from its input or arguments, which cannot be checked")
		return
	}
	const arg = `"$PARALLEL_INPUT"`
	placed := false
	parts := make([]string, 0, len(words)+1)
	for _, w := range words {
		if w.unknown {
			z.unknownBefore("parallel", w)
			return
		}
		if strings.Contains(w.val, "{=") {
			z.fail("parallel runs the Perl code of %s, which is not analysed", quote(w.val))
			return
		}
		v := w.val
		if repl != "" && strings.Contains(v, repl) {
			v, placed = strings.ReplaceAll(v, repl, arg), true
		}
		if parallelRepl.MatchString(v) {
			v, placed = parallelRepl.ReplaceAllLiteralString(v, arg), true
		}
		if quoted {
			v = quote(w.val)
			if strings.Contains(w.val, "{") {
				z.fail("parallel -q runs %s with run-time text in it", quote(w.val))
				return
			}
		}
		parts = append(parts, v)
	}
	if !placed {
		parts = append(parts, arg) // the input is appended to the command
	}
	z.shellText("parallel", field{val: strings.Join(parts, " "), src: words[0].src}, ctx)
}
