package shellscan

import "strings"

// Package managers that run a command given on their command line:
// npm exec (npm x, npx) runs the shell text of -c/--call, or the program
// its operands name, a package's or any on PATH; pnpm exec, pnpm dlx and
// pnpx run their operands, joined and run by a shell with -c
// (--shell-mode); yarn exec, yarn dlx, bunx and bun x run their operands.
// The command they run is judged as if written on its own, so a rule about
// it holds whatever package manager starts it.

// npmValue are npm's options that take a value (npm config definitions
// whose type is not boolean), and the one-letter or short forms
// (shorthands) that stand for one of them.
var npmValue = map[string]bool{
	"_auth": true, "access": true, "allow-directory": true, "allow-file": true, "allow-git": true,
	"allow-remote": true, "allow-scripts": true, "also": true, "audit-level": true, "auth-type": true,
	"before": true, "ca": true, "cache": true, "cache-max": true, "cache-min": true, "cafile": true,
	"call": true, "cert": true, "cidr": true, "cpu": true, "depth": true, "diff": true, "diff-dst-prefix": true,
	"diff-src-prefix": true, "diff-unified": true, "editor": true, "expect-result-count": true, "expires": true,
	"fetch-retries": true, "fetch-retry-factor": true, "fetch-retry-maxtimeout": true,
	"fetch-retry-mintimeout": true, "fetch-timeout": true, "git": true, "globalconfig": true, "heading": true,
	"https-proxy": true, "include": true, "init-author-email": true, "init-author-name": true,
	"init-author-url": true, "init-license": true, "init-module": true, "init-type": true, "init-version": true,
	"init.author.email": true, "init.author.name": true, "init.author.url": true, "init.license": true,
	"init.module": true, "init.version": true, "install-strategy": true, "key": true, "libc": true,
	"local-address": true, "location": true, "lockfile-version": true, "loglevel": true, "logs-dir": true,
	"logs-max": true, "maxsockets": true, "message": true, "min-release-age": true,
	"min-release-age-exclude": true, "name": true, "node-gyp": true, "node-options": true, "noproxy": true,
	"omit": true, "only": true, "orgs": true, "orgs-permission": true, "os": true, "otp": true,
	"pack-destination": true, "package": true, "packages": true, "packages-and-scopes-permission": true,
	"password": true, "prefix": true, "preid": true, "provenance-file": true, "proxy": true, "registry": true,
	"replace-registry-host": true, "save-prefix": true, "sbom-format": true, "sbom-type": true, "scope": true,
	"scopes": true, "script-shell": true, "searchexclude": true, "searchlimit": true, "searchopts": true,
	"searchstaleness": true, "shell": true, "tag": true, "tag-version-prefix": true, "token-description": true,
	"umask": true, "user-agent": true, "userconfig": true, "viewer": true, "which": true, "workspace": true,
}

// npmShorthands maps npm's shorthands that stand for an option taking a
// value to that option.
var npmShorthands = map[string]string{
	"c": "call", "C": "prefix", "L": "location", "m": "message", "w": "workspace", "reg": "registry",
	"enjoy-by": "before",
}

// npmFlagShorthands are npm's shorthands of more than one letter that
// stand for options taking no value: they are not letters run together.
var npmFlagShorthands = map[string]bool{
	"dd": true, "ddd": true, "quiet": true, "silent": true, "verbose": true, "desc": true, "help": true,
	"local": true, "no": true, "porcelain": true, "readonly": true, "iwr": true, "ws": true,
}

// npmPrograms are npm's options (and npm_config_ variables) that name a
// program npm runs or code node loads, which cannot be judged here.
var npmPrograms = map[string]bool{
	"script-shell": true, "shell": true, "editor": true, "viewer": true, "git": true, "node-gyp": true,
	"node-options": true,
}

// npmArgs is a command line of npm parsed as npm parses it.
type npmArgs struct {
	calls    []field // values of -c/--call
	operands []field // operands, in order, those after "--" included
}

// npmParse parses npm's arguments: options may come anywhere before "--"
// unless stopAtOperand (npx stops at its first operand, whose arguments
// follow); an option not known to take a value takes none, as npm does.
// A word only known at run time where an option may stand fails the
// analysis, since it could be -c.
func (z *analyzer) npmParse(prog string, args []field, stopAtOperand bool) (npmArgs, bool) {
	var out npmArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			if operandLike(a) || (!stopAtOperand && len(out.operands) > 0 && !npmExecs(out.operands[0])) {
				// An operand, or words of an npm command other than exec,
				// which runs no -c text.
				out.operands = append(out.operands, a)
				if stopAtOperand {
					out.operands = append(out.operands, args[i+1:]...)
					return out, true
				}
				continue
			}
			z.fail("the arguments of %s include %s, which is only known when the command runs and could be an option that makes %s run code", prog, a.src, prog)
			return out, false
		}
		v := a.val
		switch {
		case v == "--":
			out.operands = append(out.operands, args[i+1:]...)
			return out, true
		case strings.HasPrefix(v, "-") && len(v) > 1:
			name, value, has := strings.Cut(strings.TrimLeft(v, "-"), "=")
			names := []string{name}
			if full, ok := npmShorthands[name]; ok {
				names = []string{full}
			} else if name == "p" && prog == "npx" {
				names = []string{"package"} // npx's own shorthand
			} else if !strings.HasPrefix(v, "--") && len(name) > 1 && !npmValue[name] && !npmFlagShorthands[name] {
				// -yc: one-letter shorthands run together.
				names = names[:0]
				for _, c := range name {
					if full, ok := npmShorthands[string(c)]; ok {
						names = append(names, full)
					} else {
						names = append(names, string(c))
					}
				}
			}
			last := names[len(names)-1]
			for _, n := range names {
				if npmPrograms[n] {
					z.fail("%s %s names a program %s runs, or code node loads, which cannot be checked", prog, a.src, prog)
				}
			}
			if !has && npmValue[last] && !strings.HasPrefix(last, "no-") {
				if i+1 >= len(args) {
					continue
				}
				i++
				value, a = args[i].val, args[i]
				if a.unknown && last == "call" {
					z.fail("%s -c runs the text %s, which is only known when the command runs", prog, a.src)
					continue
				}
			}
			if last == "call" {
				out.calls = append(out.calls, field{val: value, src: a.src})
			}
		default:
			out.operands = append(out.operands, a)
			if stopAtOperand {
				out.operands = append(out.operands, args[i+1:]...)
				return out, true
			}
		}
	}
	return out, true
}

// npm follows what npm exec (npm x, npm exe) and npx run.
func (z *analyzer) npm(prog string, args []field, ctx runCtx) {
	if prog == "npx" {
		p, ok := z.npmParse(prog, args, true)
		if ok {
			z.npmExec("npx", p, ctx)
		}
		return
	}
	p, ok := z.npmParse(prog, args, false)
	if !ok {
		return
	}
	if len(p.operands) == 0 {
		return
	}
	sub := p.operands[0]
	if sub.unknown {
		z.fail("npm runs the command %s, which is only known when the command runs and could be exec", sub.src)
		return
	}
	if sub.val == "set" || (sub.val == "config" || sub.val == "c") && len(p.operands) > 1 && p.operands[1].val == "set" {
		z.npmConfigSet(p.operands[1:], ctx)
		return
	}
	if npmExecs(sub) {
		if ctx.trailing {
			z.fail("npm %s run by xargs takes more arguments from the input of xargs, which could be -c", sub.val)
			return
		}
		p.operands = p.operands[1:]
		z.npmExec("npm "+sub.val, p, ctx)
	}
}

// npmConfigSet judges the values npm config set writes (key value or
// key=value pairs): npm exec later runs call, and the keys of
// npmPrograms name programs npm runs.
func (z *analyzer) npmConfigSet(args []field, ctx runCtx) {
	if len(args) > 0 && !args[0].unknown && args[0].val == "set" {
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		k := args[i]
		if k.unknown {
			z.fail("npm config set sets the key %s, which is only known when the command runs and could name a program npm runs", k.src)
			return
		}
		key, value, has := strings.Cut(k.val, "=")
		v := field{val: value, src: k.src}
		if !has {
			if i+1 < len(args) {
				i++
				v = args[i]
			} else {
				v = field{}
			}
		}
		switch key = strings.TrimLeft(key, "-"); {
		case key == "call":
			z.shellText("npm config set call", v, ctx)
		case npmPrograms[key]:
			z.fail("npm config set %s names a program npm runs, or code node loads, which cannot be checked", key)
		}
	}
}

// npmExecs reports whether the npm command word w is exec: its alias x,
// or exec abbreviated as npm allows (exe).
func npmExecs(w field) bool {
	return !w.unknown && (w.val == "x" || (len(w.val) >= 3 && strings.HasPrefix("exec", w.val)))
}

// npmExec follows the shell text of --call and the command npm exec runs;
// without either it starts a shell that reads its input.
func (z *analyzer) npmExec(how string, p npmArgs, ctx runCtx) {
	for _, c := range p.calls {
		z.shellText(how+" -c", c, ctx)
	}
	if len(p.operands) > 0 {
		z.command(p.operands, "", ctx)
		return
	}
	if len(p.calls) == 0 {
		if ctx.trailing {
			z.fail("%s run by xargs takes the command to run from the input of xargs", how)
			return
		}
		z.fail("%s without a command starts a shell that reads commands from its input", how)
	}
}

// pnpm follows what pnpm exec, pnpm dlx and pnpx run: the words after
// the command, run as a program, or joined and run by a shell with -c
// (--shell-mode) among pnpm's options.
func (z *analyzer) pnpm(prog string, args []field, ctx runCtx) {
	shellMode, found := false, prog == "pnpx"
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			if found && operandLike(a) {
				break
			}
			z.unknownBefore(prog, a)
			return
		}
		v := a.val
		switch {
		case v == "--":
			i++
			break options
		case !strings.HasPrefix(v, "-") || v == "-":
			switch {
			case found:
				break options
			case v == "exec":
				// pnpm exec takes every word after it as the command.
				found = true
				i++
				break options
			case v == "dlx":
				found = true
				continue
			case mayTakeValue(args, i):
				continue
			}
			return // another command of pnpm
		}
		name, _, has := strings.Cut(strings.TrimLeft(v, "-"), "=")
		switch {
		case name == "shell-mode", !strings.HasPrefix(v, "--") && strings.Contains(name, "c"):
			shellMode = true
		case has:
		case name == "C" || name == "dir" || name == "F" || name == "filter" || name == "filter-prod" ||
			name == "test-pattern" || name == "changed-files-ignore-pattern" || name == "reporter" ||
			name == "loglevel" || name == "workspace-concurrency" || name == "resume-from" ||
			name == "package" || name == "allow-build":
			i++
		}
	}
	rest := args[min(i, len(args)):]
	if !found || len(rest) == 0 {
		return
	}
	if shellMode {
		if ctx.trailing {
			z.fail("%s --shell-mode run by xargs runs text taken from the input of xargs", prog)
			return
		}
		z.joinedText(prog+" --shell-mode", rest, ctx)
		return
	}
	z.command(rest, "", ctx)
}

// yarnLike follows what yarn exec, yarn dlx, bunx and bun x run: the
// words after the command and its options.
func (z *analyzer) yarnLike(prog string, args []field, ctx runCtx) {
	i := 0
	found := prog == "bunx"
	for ; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			if found && operandLike(a) {
				break
			}
			z.unknownBefore(prog, a)
			return
		}
		v := a.val
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			if found {
				break
			}
			switch {
			case prog == "yarn" && (v == "exec" || v == "dlx"), prog == "bun" && v == "x":
				found = true
				continue
			case mayTakeValue(args, i):
				continue
			}
			return // another command of the package manager
		}
		name, _, has := strings.Cut(strings.TrimLeft(v, "-"), "=")
		if !has && (name == "p" || name == "package" || name == "cwd" || name == "cache-folder" ||
			name == "modules-folder" || name == "global-folder" || name == "registry" || name == "network-timeout") {
			i++
		}
	}
	rest := args[min(i, len(args)):]
	if !found || len(rest) == 0 {
		return
	}
	z.command(rest, "", ctx)
}

// mayTakeValue reports whether args[i] follows an option written without
// "=" (--name value), whose value it may be: the package manager's
// command may then come later.
func mayTakeValue(args []field, i int) bool {
	if i == 0 || args[i-1].unknown {
		return false
	}
	prev := args[i-1].val
	return strings.HasPrefix(prev, "-") && prev != "-" && prev != "--" && !strings.Contains(prev, "=")
}
