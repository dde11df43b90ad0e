package shellscan

import (
	"strings"
)

// git runs shell text from its configuration (aliases starting with "!",
// core.pager, core.sshCommand, core.fsmonitor, filters, diff drivers, ...)
// and from options of some commands (--upload-pack, rebase --exec,
// filter-branch's filters, submodule foreach, bisect run). Configuration
// given on the command line (-c, --config-env, clone -c) or written with
// git config is judged here; a key git may run code from that is not known
// here, or configuration read from a file the command names, cannot be
// judged.

// gitGlobal are git's options before the command that take a value.
var gitGlobal = optSpec{short: "Cc", long: []string{
	"git-dir", "work-tree", "namespace", "super-prefix", "shallow-file", "config-env", "list-cmds", "attr-source"}}

// gitSafeSections are configuration sections whose keys never name a
// command, apart from the keys gitConfigKind lists.
var gitSafeSections = map[string]bool{
	"user": true, "author": true, "committer": true, "color": true, "advice": true, "init": true,
	"commit": true, "tag": true, "pull": true, "push": true, "merge": true, "rebase": true, "diff": true,
	"log": true, "format": true, "branch": true, "checkout": true, "fetch": true, "core": true,
	"i18n": true, "grep": true, "blame": true, "status": true, "column": true, "pretty": true,
	"http": true, "url": true, "safe": true, "gc": true, "maintenance": true, "pack": true,
	"index": true, "feature": true, "transfer": true, "uploadpack": true, "receive": true,
	"submodule": true, "clone": true, "am": true, "apply": true, "stash": true, "notes": true,
	"rerere": true, "reset": true, "sparse": true, "worktree": true, "versionsort": true,
	"mailmap": true, "fsck": true, "fastimport": true, "credential": true, "gpg": true, "ssh": true,
	"splitindex": true, "remote": true, "difftool": true, "mergetool": true, "filter": true,
	"alias": true, "pager": true, "sequence": true, "man": true, "browser": true, "web": true,
	"sendemail": true, "interactive": true, "protocol": true, "help": true, "add": true,
	"bundle": true, "repack": true, "revert": true, "showbranch": true, "trailer": true,
}

// gitConfigKind says how git uses the value of the configuration key
// (section.name or section.subsection.name): "" when it names no command,
// "shell" when git runs it as shell text, "alias" for aliases, "unknown"
// when git may run code it names that cannot be judged.
func gitConfigKind(key string) string {
	section, name := key, ""
	if i := strings.IndexByte(key, '.'); i >= 0 {
		section = key[:i]
	}
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		name = key[i+1:]
	}
	section, name = strings.ToLower(section), strings.ToLower(name)
	sub := strings.Count(key, ".") >= 2
	switch section + "." + name {
	case "alias." + name:
		return "alias"
	case "core.pager", "core.editor", "core.sshcommand", "core.askpass", "core.fsmonitor", "core.gitproxy",
		"core.alternaterefscommand", "sequence.editor", "diff.external", "gpg.program", "gpg.defaultkeycommand",
		"uploadpack.packobjectshook", "man.viewer", "web.browser", "help.browser", "interactive.difffilter",
		"sendemail.tocmd", "sendemail.cccmd", "sendemail.headercmd", "sendemail.sendmailcmd",
		"sendemail.smtpserver", "credential.helper", "color.pager":
		return "shell"
	case "core.hookspath", "init.templatedir", "protocol.allow", "include.path", "core.worktree":
		if name == "worktree" {
			return ""
		}
		return "unknown"
	}
	if section == "pager" {
		return "shell"
	}
	if sub {
		switch section + "." + name {
		case "diff.command", "diff.textconv", "merge.driver", "filter.clean", "filter.smudge",
			"filter.process", "credential.helper", "gpg.program", "remote.uploadpack", "remote.receivepack",
			"remote.vcs", "difftool.cmd", "difftool.path", "mergetool.cmd", "mergetool.path", "man.cmd",
			"man.path", "browser.cmd", "browser.path", "submodule.update":
			return "shell"
		case "protocol.allow":
			return "unknown"
		}
	}
	if section == "includeif" || !gitSafeSections[section] {
		return "unknown"
	}
	return ""
}

// isGitBool reports whether a configuration value is one of git's
// booleans, which name no command.
func isGitBool(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// gitConfig judges one configuration value given to git.
func (z *analyzer) gitConfig(how, key string, value field, ctx runCtx) {
	kind := gitConfigKind(key)
	if kind == "" {
		return
	}
	if value.unknown {
		z.fail("%s sets %s to %s, which is only known when the command runs, and git may run it as a command", how, key, value.src)
		return
	}
	v := value.val
	switch kind {
	case "alias":
		if cmd, ok := strings.CutPrefix(v, "!"); ok {
			z.shellText("git alias "+key, field{val: cmd, src: value.src}, ctx)
		} else {
			z.shellText("git alias "+key, field{val: "git " + v, src: value.src}, ctx)
		}
	case "shell":
		if isGitBool(v) && (strings.HasPrefix(strings.ToLower(key), "pager.") ||
			strings.EqualFold(key, "core.fsmonitor") || strings.EqualFold(key, "color.pager")) {
			return
		}
		if lower := strings.ToLower(key); strings.HasPrefix(lower, "remote.") && strings.HasSuffix(lower, ".vcs") {
			v = "git-remote-" + v
		}
		v = strings.TrimPrefix(v, "!")
		if v == "" {
			return
		}
		z.shellText(how+" "+key, field{val: v, src: value.src}, ctx)
	default:
		if strings.HasPrefix(strings.ToLower(key), "protocol.") && !strings.EqualFold(v, "always") && !strings.EqualFold(v, "user") {
			return
		}
		z.fail("%s sets %s, which can make git run code that cannot be checked", how, key)
	}
}

// git follows the code git runs from its options and the configuration
// its command line gives.
func (z *analyzer) git(args []field, ctx runCtx) {
	i := 0
	for i < len(args) {
		a := args[i]
		if a.unknown {
			z.fail("the arguments of git include %s, which is only known when the command runs and could be an option that makes git run code", a.src)
			return
		}
		v := a.val
		if !strings.HasPrefix(v, "-") || v == "-" {
			break
		}
		i++
		name, value, has := strings.Cut(strings.TrimPrefix(v, "--"), "=")
		switch {
		case v == "-c" || strings.HasPrefix(v, "-c") && !strings.HasPrefix(v, "--"):
			kv := field{val: strings.TrimPrefix(v, "-c"), src: a.src}
			if v == "-c" {
				if i >= len(args) {
					return
				}
				kv, i = args[i], i+1
			}
			if kv.unknown {
				z.fail("git -c %s sets configuration only known when the command runs, which can make git run code", kv.src)
				return
			}
			key, val, _ := strings.Cut(kv.val, "=")
			z.gitConfig("git -c", key, field{val: val, src: kv.src}, ctx)
		case strings.HasPrefix(v, "--") && longIs(name, "config-env"):
			if !has {
				if i >= len(args) {
					return
				}
				value, i = args[i].val, i+1
			}
			key, envVar, _ := strings.Cut(value, "=")
			z.gitConfig("git --config-env", key, field{src: "$" + envVar, unknown: true}, ctx)
		case strings.HasPrefix(v, "--") && longIs(name, "exec-path"):
			if has {
				z.fail("git --exec-path=%s runs git's commands from another directory, which cannot be checked", value)
			}
		case v == "-C" || (strings.HasPrefix(v, "--") && !has && longTakesValue(name, gitGlobal.long)):
			i++
		}
	}
	if i >= len(args) {
		return
	}
	if i > 0 {
		z.gitCommand(args[i:], ctx)
	}
	sub := args[i].val
	rest := args[i+1:]
	switch sub {
	case "config":
		z.gitConfigCommand(rest, ctx)
		return
	case "bisect":
		if len(rest) > 0 && !rest[0].unknown && rest[0].val == "run" {
			z.command(rest[1:], "", ctx)
		}
		return
	case "submodule":
		z.gitSubmodule(rest, ctx)
		return
	}
	z.gitOptions(sub, rest, ctx)
}

// gitCommand records a git command given after git's own options
// (git --no-pager push, git -C dir push) as the command without them
// (git push): rules name git's commands that way, so a rule about git push
// holds whatever options come before push. The command as written stays
// a pattern too, so a rule about either form holds.
func (z *analyzer) gitCommand(args []field, ctx runCtx) {
	tokens := append([]string{"git"}, values(args)...)
	z.add(Command{Name: "git", Args: tokens[1:], Text: "git " + joinDisplay(args) + ctx.redirs}, tokens)
}

// gitCodeOptions maps git commands to their long options (and the short
// ones in the map's second table) whose value git runs as shell text.
var gitCodeOptions = map[string][]string{
	"clone":         {"upload-pack", "template", "config"},
	"fetch":         {"upload-pack"},
	"pull":          {"upload-pack"},
	"ls-remote":     {"upload-pack"},
	"fetch-pack":    {"upload-pack", "exec"},
	"push":          {"receive-pack", "exec"},
	"send-pack":     {"receive-pack", "exec"},
	"archive":       {"exec"},
	"rebase":        {"exec"},
	"difftool":      {"extcmd"},
	"grep":          {"open-files-in-pager"},
	"send-email":    {"to-cmd", "cc-cmd", "header-cmd", "sendmail-cmd", "smtp-server"},
	"daemon":        {"access-hook"},
	"init":          {"template"},
	"instaweb":      {"httpd", "browser"},
	"filter-branch": {"setup", "env-filter", "tree-filter", "index-filter", "parent-filter", "msg-filter", "commit-filter", "tag-name-filter"},
}

// gitCodeShort maps git commands to their short options that take code.
var gitCodeShort = map[string]string{
	"clone":     "uc",
	"ls-remote": "u",
	"rebase":    "x",
	"difftool":  "x",
	"grep":      "O",
}

// gitOptions follows the code options of one git command.
func (z *analyzer) gitOptions(sub string, args []field, ctx runCtx) {
	long, ok := gitCodeOptions[sub]
	if !ok {
		return
	}
	short := gitCodeShort[sub]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			if operandLike(a) {
				continue
			}
			z.fail("the arguments of git %s include %s, which is only known when the command runs and could be an option that makes git run code", sub, a.src)
			return
		}
		v := a.val
		if v == "--" {
			return
		}
		var o option
		switch {
		case strings.HasPrefix(v, "--"):
			name, value, has := strings.Cut(v[2:], "=")
			var full string
			for _, l := range long {
				if longIs(name, l) {
					full = l
				}
			}
			if full == "" {
				continue
			}
			o = option{name: "--" + full, value: field{val: value, src: a.src}, has: has}
			if !has && full != "open-files-in-pager" && i+1 < len(args) {
				i++
				o.value, o.has = args[i], true
			}
		case strings.HasPrefix(v, "-") && len(v) > 1 && strings.IndexByte(short, v[1]) >= 0:
			o = option{name: v[:2], value: field{val: v[2:], src: a.src}, has: len(v) > 2}
			if !o.has && v[1] != 'O' && i+1 < len(args) {
				i++
				o.value, o.has = args[i], true
			}
		default:
			continue
		}
		switch o.name {
		case "--config", "-c":
			if o.value.unknown {
				z.fail("git %s %s sets configuration only known when the command runs, which can make git run code", sub, o.name)
				continue
			}
			key, val, _ := strings.Cut(o.value.val, "=")
			z.gitConfig("git "+sub+" "+o.name, key, field{val: val, src: o.value.src}, ctx)
		case "--template":
			z.codeFile("git "+sub, o, "copies hooks from a template directory, which run later")
		default:
			if o.has {
				z.shellText("git "+sub+" "+o.name, o.value, ctx)
			}
		}
	}
}

// gitSubmodule follows the shell text of git submodule foreach.
func (z *analyzer) gitSubmodule(args []field, ctx runCtx) {
	for i, a := range args {
		if a.unknown {
			return
		}
		if a.val != "foreach" {
			continue
		}
		rest := args[i+1:]
		for len(rest) > 0 && !rest[0].unknown && strings.HasPrefix(rest[0].val, "-") {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return
		}
		var b strings.Builder
		for _, r := range rest {
			if r.unknown {
				z.fail("git submodule foreach runs %s, which is only known when the command runs", r.src)
				return
			}
			b.WriteString(r.val)
			b.WriteByte(' ')
		}
		z.shellText("git submodule foreach", field{val: b.String(), src: rest[0].src}, ctx)
		return
	}
}

// gitConfigCommand judges the values git config writes: a key that names a
// command makes later git commands run the value.
func (z *analyzer) gitConfigCommand(args []field, ctx runCtx) {
	var operands []field
	reading := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			operands = append(operands, a)
			continue
		}
		v := a.val
		switch {
		case v == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case v == "-f" || v == "--file" || v == "--blob" || v == "--type" || v == "--default" ||
			v == "--comment" || v == "--value" || v == "--url" || v == "-t":
			i++
		case strings.HasPrefix(v, "--get") || strings.HasPrefix(v, "--unset") || v == "-l" || v == "--list" ||
			v == "-e" || v == "--edit" || strings.HasPrefix(v, "--rename-section") || strings.HasPrefix(v, "--remove-section"):
			reading = true
		case strings.HasPrefix(v, "-"):
		default:
			operands = append(operands, a)
		}
	}
	if reading || len(operands) == 0 {
		return
	}
	if !operands[0].unknown {
		switch operands[0].val {
		case "set":
			operands = operands[1:]
		case "get", "unset", "list", "edit", "rename-section", "remove-section", "get-color", "get-colorbool":
			return
		}
	}
	if len(operands) < 2 {
		return
	}
	if operands[0].unknown {
		z.fail("git config sets the key %s, which is only known when the command runs and could name a command git runs", operands[0].src)
		return
	}
	z.gitConfig("git config", operands[0].val, operands[1], ctx)
}
