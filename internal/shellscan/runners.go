package shellscan

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

// suSpec are the options of su and runuser.
var suSpec = optSpec{short: "cgGswu", permute: true, long: []string{
	"command", "session-command", "group", "supp-group", "shell", "whitelist-environment", "user"}}

// su follows what su and runuser run: the shell of -s (or the user's
// shell, taken for sh) with the text of -c and the words after the user.
// runuser -u runs its operands as a command.
func (z *analyzer) su(prog string, args []field, ctx runCtx) {
	opts, operands, ok := z.scanOptions(prog, suSpec, args)
	if !ok {
		return
	}
	var shell, text *field
	user := false
	for _, o := range opts {
		switch {
		case o.is("-h", "help"), o.is("-V", "version"):
			return
		case o.is("-c", "command", "session-command") && o.has:
			text = &o.value
		case o.is("-s", "shell") && o.has:
			shell = &o.value
		case o.is("-u", "user") && prog == "runuser":
			user = true
		}
	}
	if user {
		if text != nil {
			z.shellText(prog, *text, ctx)
		}
		if len(operands) > 0 {
			z.command(operands, "", ctx)
		}
		return
	}
	if len(operands) > 0 && !operands[0].unknown && operands[0].val == "-" {
		operands = operands[1:]
	}
	if len(operands) > 0 {
		if operands[0].unknown && !operandLike(operands[0]) {
			z.unknownBefore(prog, operands[0])
			return
		}
		operands = operands[1:] // the user
	}
	var words []field
	if text != nil {
		words = append(words, field{val: "-c", src: "-c"}, *text)
	}
	words = append(words, operands...)
	if shell == nil {
		z.shell("sh", words, ctx)
		return
	}
	z.command(append([]field{*shell}, words...), "", ctx)
}

// script follows the text script runs with -c; without -c it starts a
// shell reading its input.
func (z *analyzer) script(args []field, ctx runCtx) {
	found := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			z.unknownBefore("script", a)
			return
		}
		v := a.val
		if v == "--" {
			break
		}
		if name, value, ok := strings.Cut(v, "="); ok && name == "--command" {
			z.shellText("script", field{val: value, src: a.src}, ctx)
			found = true
			continue
		}
		isC := v == "--command" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.HasSuffix(v, "c"))
		if isC && i+1 < len(args) {
			i++
			z.shellText("script", args[i], ctx)
			found = true
		}
	}
	if !found {
		z.fail("script without -c starts a shell that reads commands from its input")
	}
}

// sg follows the text "sg [-] group [-c] command" runs with sh -c;
// without a command it starts a shell reading its input.
func (z *analyzer) sg(args []field, ctx runCtx) {
	i := 0
	if i < len(args) && !args[i].unknown && args[i].val == "-" {
		i++
	}
	if i < len(args) && args[i].unknown {
		z.unknownBefore("sg", args[i])
		return
	}
	i++ // the group
	if i < len(args) && !args[i].unknown && args[i].val == "-c" {
		i++
	}
	if i >= len(args) {
		z.fail("sg without a command starts a shell that reads commands from its input")
		return
	}
	z.joinedText("sg", args[i:], ctx)
}

// joinedText analyses words a program joins with spaces and runs as shell
// text.
func (z *analyzer) joinedText(prog string, words []field, ctx runCtx) {
	parts := make([]string, 0, len(words))
	for _, w := range words {
		if w.unknown {
			z.fail("%s runs the text %s, which is only known when the command runs", prog, w.src)
			return
		}
		parts = append(parts, w.val)
	}
	z.shellText(prog, field{val: strings.Join(parts, " "), src: words[0].src}, ctx)
}

// ip follows the command of "ip netns exec NAME" and "ip vrf exec NAME"
// (with -all, every namespace runs it); a batch file of ip commands cannot
// be checked.
func (z *analyzer) ip(args []field, ctx runCtx) {
	i, all := 0, false
	for ; i < len(args) && (args[i].unknown || strings.HasPrefix(args[i].val, "-")); i++ {
		a := args[i]
		if a.unknown {
			z.unknownBefore("ip", a)
			return
		}
		switch strings.TrimPrefix(a.val, "-") {
		case "a", "all":
			all = true
		case "b", "batch", "force":
			z.fail("ip %s runs ip commands read from a file or its input, which cannot be checked", a.val)
			return
		case "n", "netns", "f", "family", "l", "loops", "rc", "rcvbuf":
			i++
		}
	}
	if i+1 >= len(args) || args[i].unknown || args[i+1].unknown {
		if i+1 < len(args) {
			z.unknownBefore("ip", args[i+1])
		}
		return
	}
	obj, sub := args[i].val, args[i+1].val
	netns := obj == "netns" || obj == "netn" || obj == "net"
	vrf := obj != "" && strings.HasPrefix("vrf", obj)
	if !(netns || vrf) || sub == "" || !strings.HasPrefix("exec", sub) {
		return
	}
	rest := args[i+2:]
	if !all || vrf {
		if len(rest) == 0 {
			return
		}
		if rest[0].unknown && !operandLike(rest[0]) {
			z.unknownBefore("ip", rest[0])
			return
		}
		rest = rest[1:] // the namespace or device
	}
	if len(rest) == 0 {
		return
	}
	z.command(rest, "", ctx)
}
