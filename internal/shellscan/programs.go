package shellscan

import (
	"slices"
	"strings"
)

// Programs that run code given in their own options: tar's
// --to-command, rsync -e, ssh -o ProxyCommand, zip -TT, man -P, less's
// initial commands, and the editors and debuggers that read commands.
// Where the code is shell text it is analysed as such; where it is code of
// another language or a file only known at run time, the command cannot be
// judged and is unanalysable.

// optSpec describes the options of a program well enough to find the
// values of those that carry code.
type optSpec struct {
	short    string   // short options that take a value
	optional string   // short options whose value, if any, is attached
	long     []string // long options that take a value
	// permute marks programs (GNU getopt) that accept options after
	// operands; the others stop at the first operand.
	permute bool
}

// option is one option of a command line: its name as "-x" or "--name"
// (an abbreviated long name stays as written), and its value.
type option struct {
	name  string
	value field
	has   bool
}

// scanOptions splits args into options and operands by spec. A word only
// known at run time where an option may stand could itself be any option,
// one that runs code included: scanOptions then records why and reports
// false.
func (z *analyzer) scanOptions(prog string, spec optSpec, args []field) (opts []option, operands []field, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			if operandLike(a) {
				operands = append(operands, a)
				if !spec.permute {
					return opts, append(operands, args[i+1:]...), true
				}
				continue
			}
			z.fail("the arguments of %s include %s, which is only known when the command runs and could be an option that makes %s run code", prog, a.src, prog)
			return nil, nil, false
		}
		v := a.val
		switch {
		case v == "--":
			return opts, append(operands, args[i+1:]...), true
		case strings.HasPrefix(v, "--") && len(v) > 2:
			name, value, has := strings.Cut(v[2:], "=")
			o := option{name: "--" + name, value: field{val: value, src: a.src}, has: has}
			if !has && longTakesValue(name, spec.long) && i+1 < len(args) {
				i++
				o.value, o.has = args[i], true
			}
			opts = append(opts, o)
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case strings.IndexByte(spec.optional, c) >= 0:
					opts = append(opts, option{name: "-" + string(c), value: field{val: v[j+1:], src: a.src}, has: j+1 < len(v)})
				case strings.IndexByte(spec.short, c) >= 0:
					o := option{name: "-" + string(c), value: field{val: v[j+1:], src: a.src}, has: true}
					if j+1 == len(v) {
						if i+1 >= len(args) {
							o.has = false
						} else {
							i++
							o.value = args[i]
						}
					}
					opts = append(opts, o)
				default:
					opts = append(opts, option{name: "-" + string(c)})
					continue
				}
				break
			}
		default:
			operands = append(operands, a)
			if !spec.permute {
				return opts, append(operands, args[i+1:]...), true
			}
		}
	}
	return opts, operands, true
}

// operandLike reports whether a word only known at run time is taken for
// an operand: its literal start rules out an option, or it is one
// double-quoted word with no literal start, as operands ("$file",
// "$(git branch --show-current)") are written. An unquoted expansion
// splits into words and stands for options as often as for operands.
func operandLike(a field) bool {
	if a.lead != "" {
		return !strings.HasPrefix(a.lead, "-") && !strings.HasPrefix(a.lead, "+")
	}
	return a.quoted
}

// longTakesValue reports whether the long option name, perhaps
// abbreviated, is one of those that take a value.
func longTakesValue(name string, long []string) bool {
	for _, l := range long {
		if longIs(name, l) {
			return true
		}
	}
	return false
}

// longIs reports whether the long option name as written (without its
// dashes) names full: the same name, or an abbreviation of it, which
// getopt_long and git accept when no other option shares the prefix.
// Taking every prefix of three or more letters fails closed.
func longIs(name, full string) bool {
	return name == full || (len(name) >= 3 && strings.HasPrefix(full, name))
}

// is reports whether the option is the short option short (e.g. "-e") or
// the long option long (e.g. "rsh"), abbreviated or not.
func (o option) is(short string, long ...string) bool {
	if short != "" && o.name == short {
		return true
	}
	if name, ok := strings.CutPrefix(o.name, "--"); ok {
		for _, l := range long {
			if longIs(name, l) {
				return true
			}
		}
	}
	return false
}

// codeText analyses the value of an option that a program runs as shell
// text.
func (z *analyzer) codeText(prog string, o option, ctx runCtx) {
	if !o.has {
		return
	}
	z.shellText(prog+" "+o.name, o.value, ctx)
}

// codeFile records an option whose value names a file of code, or code
// in another language, that cannot be judged.
func (z *analyzer) codeFile(prog string, o option, what string) {
	z.fail("%s %s %s, which cannot be checked", prog, o.name, what)
}

// tar follows the commands tar runs: --to-command, --checkpoint-action
// exec=, -I/--use-compress-program, -F/--info-script, --rsh-command and
// --rmt-command. The first word of an old-style command line ("tar xIf
// prog a.tar") bundles options whose values follow in order.
func (z *analyzer) tar(args []field, ctx runCtx) {
	spec := optSpec{short: "bCfFgHIKLNTVX", permute: true, long: []string{
		"blocking-factor", "directory", "file", "info-script", "new-volume-script", "listed-incremental",
		"format", "use-compress-program", "starting-file", "tape-length", "newer", "after-date",
		"files-from", "label", "exclude-from", "to-command", "checkpoint-action", "rsh-command",
		"rmt-command", "transform", "xform", "owner", "group", "mode", "mtime", "exclude", "index-file",
		"record-size", "volno-file", "quoting-style", "suffix", "backup", "occurrence", "strip-components",
		"sort", "warning", "atime-preserve", "hole-detection", "pax-option", "owner-map", "group-map"}}
	if len(args) > 0 && !args[0].unknown && args[0].val != "" && !strings.HasPrefix(args[0].val, "-") {
		// Old style: expand "xIf" into "-x -I -f" with the values after.
		var words []field
		letters, rest := args[0].val, args[1:]
		for _, c := range letters {
			words = append(words, field{val: "-" + string(c), src: args[0].src})
			if strings.ContainsRune(spec.short, c) && len(rest) > 0 {
				words = append(words, rest[0])
				rest = rest[1:]
			}
		}
		args = append(words, rest...)
	}
	opts, _, ok := z.scanOptions("tar", spec, args)
	if !ok {
		return
	}
	for _, o := range opts {
		switch {
		case o.is("-I", "use-compress-program"), o.is("-F", "info-script", "new-volume-script"),
			o.is("", "to-command", "rsh-command", "rmt-command"):
			z.codeText("tar", o, ctx)
		case o.is("", "checkpoint-action") && o.name != "--checkpoint":
			if cmd, ok := strings.CutPrefix(o.value.val, "exec="); ok || o.value.unknown {
				z.shellText("tar "+o.name, field{val: cmd, src: o.value.src, unknown: o.value.unknown}, ctx)
			}
		}
	}
}

// rsync follows the remote shell of -e/--rsh and the program of
// --rsync-path, which rsync runs.
func (z *analyzer) rsync(args []field, ctx runCtx) {
	spec := optSpec{short: "BefTM@", permute: true, long: []string{
		"rsh", "rsync-path", "filter", "exclude", "include", "exclude-from", "include-from", "files-from",
		"temp-dir", "compare-dest", "copy-dest", "link-dest", "backup-dir", "suffix", "chmod", "chown",
		"usermap", "groupmap", "block-size", "max-size", "min-size", "max-delete", "bwlimit", "timeout",
		"contimeout", "modify-window", "partial-dir", "log-file", "log-file-format", "out-format",
		"password-file", "port", "sockopts", "checksum-choice", "compress-choice", "compress-level",
		"skip-compress", "remote-option", "address", "iconv", "info", "debug", "stop-after", "stop-at",
		"write-batch", "only-write-batch", "read-batch", "protocol", "outbuf", "config", "dparam", "mkpath"}}
	opts, _, ok := z.scanOptions("rsync", spec, args)
	if !ok {
		return
	}
	for _, o := range opts {
		switch {
		case o.is("-e", "rsh"), o.is("", "rsync-path"):
			z.codeText("rsync", o, ctx)
		case o.is("-M", "remote-option"):
			if o.has && !o.value.unknown && strings.HasPrefix(o.value.val, "-") {
				z.rsync([]field{o.value}, ctx)
			}
		}
	}
}

// sshCodeKeys are the ssh options (lower case) whose value is a command
// ssh runs locally, and those that load code or configuration ssh cannot
// be judged without.
var sshCodeKeys = map[string]bool{"proxycommand": true, "localcommand": true, "knownhostscommand": true}

var sshFileKeys = map[string]bool{
	"pkcs11provider": true, "securitykeyprovider": true, "include": true, "match": true,
}

// ssh follows the local commands of ssh, scp and sftp: -o ProxyCommand,
// LocalCommand and KnownHostsCommand, scp and sftp -S, sftp -D, and the
// configuration and libraries named by -F, -I and -o.
func (z *analyzer) ssh(prog string, args []field, ctx runCtx) {
	spec := optSpec{short: "BbcDEeFIiJLlmOoPpQRSWw"}
	switch prog {
	case "scp":
		spec = optSpec{short: "cDFiJlloPSX", permute: true}
	case "sftp":
		spec = optSpec{short: "BbcDFiJloPRSsX"}
	}
	opts, _, ok := z.scanOptions(prog, spec, args)
	if !ok {
		return
	}
	for _, o := range opts {
		switch {
		case o.name == "-o":
			if !o.has {
				continue
			}
			if o.value.unknown {
				z.fail("%s -o %s sets an option only known when the command runs, which could make %s run a command", prog, o.value.src, prog)
				continue
			}
			key, value, _ := strings.Cut(strings.TrimSpace(o.value.val), "=")
			if k, v, ok := strings.Cut(key, " "); ok && value == "" {
				key, value = k, v
			}
			key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
			switch {
			case sshCodeKeys[key] && !strings.EqualFold(value, "none"):
				z.shellText(prog+" -o "+key, field{val: value, src: o.value.src}, ctx)
			case sshFileKeys[key] && !strings.EqualFold(value, "none") && !strings.EqualFold(value, "internal"):
				z.codeFile(prog, o, "loads code or configuration from "+quote(value))
			}
		case o.name == "-F" && o.has:
			if o.value.unknown || (o.value.val != "none" && o.value.val != "/dev/null") {
				z.codeFile(prog, o, "reads a configuration file, whose ProxyCommand and LocalCommand")
			}
		case o.name == "-I" && prog != "scp" && o.has:
			z.codeFile(prog, o, "loads the library "+o.value.display())
		case o.name == "-S" && prog != "ssh", o.name == "-D" && prog == "sftp":
			z.codeText(prog, o, ctx)
		case o.name == "-b" && prog == "sftp":
			z.codeFile(prog, o, "runs batch commands, whose ! commands run any program,")
		}
	}
}

// zip follows the test command of -TT/--unzip-command.
func (z *analyzer) zip(args []field, ctx runCtx) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			if !operandLike(a) {
				z.fail("the arguments of zip include %s, which is only known when the command runs and could be -TT with a command", a.src)
				return
			}
			continue
		}
		v := a.val
		if v == "--" {
			return
		}
		var cmd field
		switch {
		case strings.HasPrefix(v, "--") && longIs(strings.SplitN(v[2:], "=", 2)[0], "unzip-command"):
			_, val, has := strings.Cut(v, "=")
			cmd = field{val: val, src: a.src}
			if !has {
				if i+1 >= len(args) {
					return
				}
				i++
				cmd = args[i]
			}
		case !strings.HasPrefix(v, "--") && strings.HasPrefix(v, "-") && strings.Contains(v, "TT"):
			val := strings.TrimPrefix(v[strings.Index(v, "TT")+2:], "=")
			cmd = field{val: val, src: a.src}
			if val == "" {
				if i+1 >= len(args) {
					return
				}
				i++
				cmd = args[i]
			}
		default:
			continue
		}
		z.shellText("zip -TT", cmd, ctx)
	}
}

// man follows the pager of -P/--pager and the browser of -H/--html, and
// refuses to judge a configuration file given with -C.
func (z *analyzer) man(args []field, ctx runCtx) {
	spec := optSpec{short: "CLmMSsepPrER", optional: "HTX", permute: true, long: []string{
		"config-file", "locale", "systems", "manpath", "sections", "extension", "preprocessor", "pager",
		"prompt", "encoding", "recode"}}
	opts, _, ok := z.scanOptions("man", spec, args)
	if !ok {
		return
	}
	for _, o := range opts {
		switch {
		case o.is("-P", "pager"), o.is("-H", "html"):
			z.codeText("man", o, ctx)
		case o.is("-C", "config-file"):
			z.codeFile("man", o, "reads a configuration file, which names the pager and other programs man runs,")
		}
	}
}

// less follows initial commands given with +: a shell escape (!), a
// pipe (|) or any command other than a line number, a search, G or F runs
// or could run code; so do lesskey files, which can set LESSOPEN.
func (z *analyzer) less(prog string, args []field) {
	for _, a := range args {
		if a.unknown {
			if !operandLike(a) {
				z.fail("the arguments of %s include %s, which is only known when the command runs and could be an initial command", prog, a.src)
				return
			}
			continue
		}
		v := a.val
		switch {
		case v == "--":
			return
		case strings.HasPrefix(v, "+"):
			if cmd := strings.TrimLeft(v, "+"); !safeLessCommand(cmd) {
				z.fail("%s runs the initial command %s, which can run any program", prog, quote(v))
			}
		case strings.HasPrefix(v, "--lesskey"), v == "-k" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsRune(v, 'k')):
			z.fail("%s reads a lesskey file, which can make it run a preprocessor command", prog)
		}
	}
}

// safeLessCommand reports whether an initial command of less only moves
// or searches: a line number, G, g, F, or a search.
func safeLessCommand(cmd string) bool {
	if cmd == "" || cmd == "G" || cmd == "g" || cmd == "F" {
		return true
	}
	if cmd[0] == '/' || cmd[0] == '?' {
		return !strings.ContainsAny(cmd, "!|\n")
	}
	for _, c := range cmd {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// commandReaders are editors and debuggers that read commands, from their
// options, startup files or input, in a language of their own that can run
// any program. Only their version and help are judged.
var commandReaders = map[string]bool{
	"vi": true, "vim": true, "nvim": true, "view": true, "vimdiff": true, "gvim": true, "evim": true,
	"ex": true, "rvim": true, "rview": true, "nvi": true, "elvis": true, "ed": true, "emacs": true,
	"emacsclient": true, "gdb": true, "lldb": true, "xemacs": true,
}

// commandReader records a program that reads commands of its own.
func (z *analyzer) commandReader(prog string, args []field) {
	if len(args) == 1 && !args[0].unknown && slices.Contains([]string{"--version", "-version", "--help", "-h", "-V"}, args[0].val) {
		return
	}
	z.fail("%s runs commands of its own, from its options, startup files or input, and they can run any program", prog)
}

// make fails on --eval and on a makefile read from the input, whose
// recipes cannot be judged.
func (z *analyzer) make(args []field) {
	spec := optSpec{short: "CfIjlOoWE", permute: true, long: []string{
		"directory", "file", "makefile", "include-dir", "jobs", "load-average", "max-load", "output-sync",
		"old-file", "assume-old", "what-if", "new-file", "assume-new", "eval", "jobserver-style", "shuffle"}}
	opts, _, ok := z.scanOptions("make", spec, args)
	if !ok {
		return
	}
	for _, o := range opts {
		switch {
		case o.is("-E", "eval"):
			z.codeFile("make", o, "evaluates make text, whose $(shell) and recipes run any program,")
		case o.is("-f", "file", "makefile") && (o.value.unknown || readsInput(o.value.val)):
			z.codeFile("make", o, "reads its makefile from the input")
		}
	}
}

// socat follows the commands of EXEC: and SYSTEM: addresses.
func (z *analyzer) socat(args []field, ctx runCtx) {
	for _, a := range args {
		if a.unknown {
			z.fail("the arguments of socat include %s, which is only known when the command runs and could be an address that runs a command", a.src)
			return
		}
		kind, rest, ok := strings.Cut(a.val, ":")
		if !ok {
			continue
		}
		switch strings.ToUpper(kind) {
		case "EXEC", "SYSTEM":
			cmd, _, _ := strings.Cut(rest, ",")
			z.shellText("socat "+kind+":", field{val: cmd, src: a.src}, ctx)
		}
	}
}

// netcat follows the program of -e and the shell text of -c (and ncat's
// --exec and --sh-exec); --lua-exec runs Lua.
func (z *analyzer) netcat(prog string, args []field, ctx runCtx) {
	spec := optSpec{short: "cegGiIOpPqsTVwXx", long: []string{"exec", "sh-exec", "lua-exec"}, permute: true}
	opts, _, ok := z.scanOptions(prog, spec, args)
	if !ok {
		return
	}
	for _, o := range opts {
		switch {
		case o.is("-e", "exec"), o.is("-c", "sh-exec"):
			z.codeText(prog, o, ctx)
		case o.is("", "lua-exec"):
			z.codeFile(prog, o, "runs a Lua script")
		}
	}
}

// codeEnv are environment variables whose value a program runs as a
// command ("shell") or that make programs load code or configuration that
// cannot be judged ("unknown").
var codeEnv = map[string]string{
	"PAGER": "shell", "MANPAGER": "shell", "GIT_PAGER": "shell", "SYSTEMD_PAGER": "shell",
	"PSQL_PAGER": "shell", "BAT_PAGER": "shell", "DELTA_PAGER": "shell", "EDITOR": "shell",
	"VISUAL": "shell", "GIT_EDITOR": "shell", "GIT_SEQUENCE_EDITOR": "shell", "SVN_EDITOR": "shell",
	"GIT_SSH": "shell", "GIT_SSH_COMMAND": "shell", "GIT_ASKPASS": "shell", "SSH_ASKPASS": "shell",
	"SUDO_ASKPASS": "shell", "GIT_EXTERNAL_DIFF": "shell", "GIT_PROXY_COMMAND": "shell",
	"RSYNC_RSH": "shell", "RSYNC_CONNECT_PROG": "shell", "BROWSER": "shell", "LESSOPEN": "shell",
	"LESSCLOSE": "shell", "CVS_RSH": "shell",
	"GIT_CONFIG": "unknown", "GIT_CONFIG_GLOBAL": "unknown", "GIT_CONFIG_SYSTEM": "unknown",
	"GIT_CONFIG_PARAMETERS": "unknown", "GIT_CONFIG_COUNT": "unknown", "GIT_EXEC_PATH": "unknown",
	"GIT_TEMPLATE_DIR": "unknown", "GIT_ALLOW_PROTOCOL": "unknown", "TAR_OPTIONS": "unknown",
	"ZIPOPT": "unknown", "LD_PRELOAD": "unknown", "LD_AUDIT": "unknown", "LESSKEYIN": "unknown",
	"LESSKEY": "unknown", "LESSKEY_CONTENT": "unknown",
}

// envValue judges a value given to an environment variable that makes
// programs run commands.
func (z *analyzer) envValue(name string, v field, ctx runCtx) {
	kind := codeEnv[name]
	if strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
		kind = "unknown"
	}
	if key, ok := strings.CutPrefix(strings.ToLower(name), "npm_config_"); ok {
		// npm reads its options from these variables too.
		switch key = strings.ReplaceAll(key, "_", "-"); {
		case key == "call":
			kind = "shell"
		case npmPrograms[key]:
			kind = "unknown"
		}
	}
	if kind == "" || (!v.unknown && v.val == "") {
		return
	}
	if kind == "unknown" {
		z.fail("setting %s makes programs load code or configuration that cannot be checked", name)
		return
	}
	if v.unknown {
		z.fail("%s is set to %s, which is only known when the command runs, and programs run it as a command", name, v.src)
		return
	}
	text := v.val
	if strings.HasPrefix(name, "LESS") {
		text = strings.TrimLeft(text, "|-")
	}
	z.shellText(name, field{val: text, src: v.src}, ctx)
}

// codeProgram follows the code a program runs from its options, and
// reports whether prog is one that does.
func (z *analyzer) codeProgram(prog string, args []field, ctx runCtx) bool {
	switch prog {
	case "git":
		z.git(args, ctx)
	case "tar", "gtar", "bsdtar":
		z.tar(args, ctx)
	case "rsync":
		z.rsync(args, ctx)
	case "ssh", "scp", "sftp":
		z.ssh(prog, args, ctx)
	case "zip":
		z.zip(args, ctx)
	case "man":
		z.man(args, ctx)
	case "less":
		z.less(prog, args)
	case "make", "gmake":
		z.make(args)
	case "socat":
		z.socat(args, ctx)
	case "nc", "netcat", "ncat":
		z.netcat(prog, args, ctx)
	case "awk", "gawk", "mawk", "nawk", "original-awk":
		z.awk(prog, args)
		return true
	case "sed", "gsed":
		z.sed(prog, args, ctx)
		return true
	default:
		if commandReaders[prog] {
			z.commandReader(prog, args)
			return true
		}
		return false
	}
	if ctx.trailing {
		z.fail("%s run by xargs takes more arguments from the input of xargs, which could make it run code", prog)
	}
	return true
}
