package permission

import "strings"

// Programs that run commands in their own way: find -exec, xargs, watch,
// su and friends.

// findValue are find's primaries that take one value.
var findValue = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
	"-regex": true, "-iregex": true, "-lname": true, "-ilname": true, "-newer": true, "-anewer": true,
	"-cnewer": true, "-type": true, "-xtype": true, "-user": true, "-group": true, "-uid": true, "-gid": true,
	"-perm": true, "-size": true, "-mtime": true, "-mmin": true, "-atime": true, "-amin": true,
	"-ctime": true, "-cmin": true, "-maxdepth": true, "-mindepth": true, "-printf": true, "-fprint": true,
	"-fprint0": true, "-fls": true, "-links": true, "-inum": true, "-samefile": true, "-used": true,
	"-fstype": true, "-regextype": true, "-context": true, "-files0-from": true,
}

// find follows the commands of -exec, -execdir, -ok and -okdir, where {}
// stands for file names only known at run time.
func (z *analyzer) find(args []field) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			if a.lead != "" && !strings.HasPrefix(a.lead, "-") && !strings.HasPrefix(a.lead, "(") && !strings.HasPrefix(a.lead, "!") {
				continue // a path operand: its literal start rules out a primary
			}
			z.fail("the arguments of find include %s, which could add an -exec primary only known when the command runs", a.src)
			return
		}
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && (args[j].unknown || (args[j].val != ";" && !(args[j].val == "+" && args[j-1].val == "{}"))) {
				j++
			}
			if a.val == "-execdir" || a.val == "-okdir" {
				z.noteDir("", false) // the command runs in each file's directory
			}
			cmd := replaced(args[i+1:j], "{}")
			for k := range cmd {
				if cmd[k].unknown && !args[i+1+k].unknown && cmd[k].lead == "" {
					// {} is a path that starts with a start point of find
					// (or "./" under -execdir), never with a dash.
					cmd[k].lead = "."
				}
			}
			z.command(cmd, "", runCtx{})
			i = j
		default:
			if findValue[a.val] {
				i++
			}
		}
	}
}

// replaced marks the fields holding a placeholder that xargs or find
// replaces with run-time text as unknown.
func replaced(fs []field, placeholder string) []field {
	out := make([]field, len(fs))
	for i, f := range fs {
		out[i] = f
		if !f.unknown && strings.Contains(f.val, placeholder) {
			out[i] = field{src: quote(f.val), unknown: true, lead: f.val[:strings.Index(f.val, placeholder)]}
		}
	}
	return out
}

// xargs follows the command xargs runs with arguments from its input.
func (z *analyzer) xargs(args []field) {
	i, repl := 0, ""
options:
	for i < len(args) {
		a := args[i]
		if a.unknown {
			z.unknownBefore("xargs", a)
			return
		}
		v := a.val
		switch {
		case v == "--":
			i++
			break options
		case strings.HasPrefix(v, "--") && len(v) > 2:
			name, value, hasValue := strings.Cut(v[2:], "=")
			i++
			switch name {
			case "replace":
				repl = "{}"
				if hasValue {
					repl = value
				}
			case "arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var":
				if !hasValue {
					i++
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			i++
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case c == 'i':
					repl = "{}"
					if j+1 < len(v) {
						repl = v[j+1:]
					}
				case c == 'e' || c == 'l':
					// Optional value, attached only.
				case strings.IndexByte("adEILnPs", c) >= 0:
					value := v[j+1:]
					if j+1 == len(v) {
						if i >= len(args) {
							return
						}
						if args[i].unknown {
							z.unknownBefore("xargs", args[i])
							return
						}
						value = args[i].val
						i++
					}
					if c == 'I' {
						repl = value
					}
				default:
					continue
				}
				break
			}
		default:
			break options
		}
	}
	rest := args[min(i, len(args)):]
	if len(rest) == 0 {
		return // echo
	}
	if repl != "" {
		z.command(replaced(rest, repl), "", runCtx{})
		return
	}
	z.command(rest, "", runCtx{trailing: true})
}

// watch follows the command watch runs: its words joined and run by sh -c,
// or run directly with -x.
func (z *analyzer) watch(args []field, ctx runCtx) {
	i, direct := 0, false
options:
	for i < len(args) {
		a := args[i]
		if a.unknown {
			z.unknownBefore("watch", a)
			return
		}
		v := a.val
		switch {
		case v == "--":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			name, _, hasValue := strings.Cut(v[2:], "=")
			i++
			switch name {
			case "exec":
				direct = true
			case "interval", "equexit":
				if !hasValue {
					i++
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			i++
			for j := 1; j < len(v); j++ {
				if v[j] == 'x' {
					direct = true
				}
				if strings.IndexByte("nq", v[j]) >= 0 {
					if j+1 == len(v) {
						i++
					}
					break
				}
			}
		default:
			break options
		}
	}
	rest := args[min(i, len(args)):]
	if direct || len(rest) == 0 {
		z.command(rest, "", ctx)
		return
	}
	var b strings.Builder
	for _, r := range rest {
		if r.unknown {
			z.unknownBefore("watch", r)
			return
		}
		b.WriteString(r.val)
		b.WriteByte(' ')
	}
	z.text(b.String())
}

// su follows the text su, runuser and script run with -c; script without
// -c starts a shell reading its input, and runuser -u runs a command.
func (z *analyzer) su(prog string, args []field, ctx runCtx) {
	found := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			z.unknownBefore(prog, a)
			return
		}
		v := a.val
		if v == "--" {
			if prog == "runuser" && i+1 < len(args) {
				z.command(args[i+1:], "", ctx)
			}
			break
		}
		if name, value, ok := strings.Cut(v, "="); ok && (name == "--command" || name == "--session-command") {
			z.shellText(prog, field{val: value, src: a.src}, ctx)
			found = true
			continue
		}
		isC := v == "--command" || v == "--session-command" ||
			(strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.HasSuffix(v, "c"))
		if isC && i+1 < len(args) {
			i++
			z.shellText(prog, args[i], ctx)
			found = true
		}
	}
	if prog == "script" && !found {
		z.fail("script without -c starts a shell that reads commands from its input")
	}
}
