package shellscan

import (
	"slices"
	"strings"
)

// Launchers are programs that start a command given after their options:
// tracers, namespace and sandbox tools, privilege and session changers.
// Their options are listed in full, so that the command they start is found
// where it is: an option the table does not know could take a value, and
// the word after it might be taken for the command, so it makes the text
// unanalysable.

// launcher describes the command line of a launcher. Options are written
// "-x" or "--name".
type launcher struct {
	flags    string // short options without a value
	values   string // short options with a value, attached or next
	optional string // short options whose value, if any, is attached
	// long maps long options to how many words of value follow them
	// when no "=value" is attached (0 for a flag).
	long map[string]int
	// anyLong takes every "--name" and "--name=value" word as an option
	// (firejail, valgrind: values are always attached).
	anyLong bool
	noRun   []string // options after which no command runs
	env     []string // options whose value is NAME=VALUE for the command
	program []string // options whose value is a program the launcher runs
	text    []string // options whose value is shell text the launcher runs
	// pipeText are options whose value, when it starts with '|' or '!',
	// is shell text output is piped to (strace -o).
	pipeText []string
	code     []string // options that load code that cannot be checked
	newRoot  []string // options after which paths are resolved elsewhere
	operands int      // operands before the command
	// shellIfEmpty marks launchers that start a shell reading its input
	// when no command is given.
	shellIfEmpty bool
	// newRootAlways marks launchers whose command always runs in another
	// file system root (bwrap, proot).
	newRootAlways bool
}

// longFlags builds a long option map of flags.
func longFlags(names ...string) map[string]int {
	m := make(map[string]int, len(names))
	for _, n := range names {
		m[n] = 0
	}
	return m
}

// with adds long options taking n values to m.
func with(m map[string]int, n int, names ...string) map[string]int {
	for _, name := range names {
		m[name] = n
	}
	return m
}

// launchers are the launchers whose options are known. The table is read
// only.
var launchers = map[string]launcher{
	"strace": {flags: "AcCdDfFhikNqrtTvVwxyYzZn", values: "abeEIoOpPsSuUX", long: with(longFlags(
		"follow-forks", "output-separately", "summary-only", "summary", "summary-wall-clock", "no-abbrev",
		"verbose", "raw", "debug", "help", "version", "seccomp-bpf", "instruction-pointer", "stack-trace",
		"interruptible", "daemonize", "decode-fds", "decode-pids", "quiet", "silent", "timestamps",
		"absolute-timestamps", "relative-timestamps", "syscall-times", "strings-in-hex", "secontext",
		"tips", "output-append-mode"), 1,
		"output", "env", "attach", "trace-path", "user", "string-limit", "summary-sort-by", "columns",
		"summary-columns", "argv0", "detach-on", "syscall-limit", "signal", "status", "trace", "trace-fds",
		"read", "write", "inject", "fault", "const-print-style", "kvm", "summary-syscall-overhead"),
		noRun: []string{"-h", "-V", "--help", "--version"}, env: []string{"-E", "--env"},
		pipeText: []string{"-o", "--output"}},
	"ltrace": {flags: "bcCfhiLrStTV", values: "aADeFlnopsuwx", long: with(longFlags("demangle", "help", "version",
		"no-signals", "where", "debug"), 1, "align", "config", "indent", "library", "output"),
		noRun: []string{"-h", "-V", "--help", "--version"}},
	"unshare": {flags: "muinpUCTfrcwhV", values: "RwSGl", optional: "muinpUCT", long: with(longFlags(
		"mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "fork", "kill-child", "mount-proc",
		"mount-binfmt", "map-root-user", "map-current-user", "map-auto", "keep-caps", "help", "version"), 1,
		"propagation", "setgroups", "root", "wd", "setuid", "setgid", "map-user", "map-group", "map-users",
		"map-groups", "monotonic", "boottime", "load-interp"),
		noRun: []string{"-h", "-V", "--help", "--version"}, newRoot: []string{"-R", "--root", "-w", "--wd"}, shellIfEmpty: true},
	"nsenter": {flags: "aFZhVe", values: "tSGN", optional: "muinpUCTrw", long: with(longFlags(
		"all", "mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "root", "wd", "no-fork",
		"preserve-credentials", "follow-context", "user-parent", "keep-caps", "join-cgroup", "env", "help",
		"version"), 1, "target", "setuid", "setgid", "net-socket"),
		noRun: []string{"-h", "-V", "--help", "--version"}, newRoot: []string{"-r", "--root", "-w", "--wd", "-a", "--all", "-m", "--mount"},
		shellIfEmpty: true},
	"xvfb-run": {flags: "adhl", values: "efnpsw", long: with(longFlags("auto-servernum", "auto-display", "help",
		"listen-tcp"), 1, "error-file", "auth-file", "server-num", "xauth-protocol", "server-args", "wait"),
		noRun: []string{"-h", "--help"}},
	"ssh-agent": {flags: "cDdsk", values: "aEOPt", noRun: []string{"-k"}},
	"dbus-run-session": {long: with(longFlags("help", "version"), -1, "config-file", "dbus-daemon"),
		noRun: []string{"--help", "--version"}, program: []string{"--dbus-daemon"}, code: []string{"--config-file"}},
	"setpriv": {flags: "dhV", long: with(longFlags("dump", "no-new-privs", "init-groups", "keep-groups", "clear-groups",
		"reset-env", "help", "version"), 1, "inh-caps", "ambient-caps", "bounding-set", "ruid", "euid", "rgid", "egid",
		"reuid", "regid", "groups", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access",
		"landlock-rule", "seccomp-filter"),
		noRun: []string{"-d", "--dump", "-h", "-V", "--help", "--version"}},
	"prlimit": {flags: "hVor", optional: "bcdefilmnqrstuvxy", values: "p", long: with(longFlags("help", "version",
		"noheadings", "raw", "verbose", "as", "core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue",
		"nice", "nofile", "nproc", "rss", "rtprio", "rttime", "sigpending", "stack"), 1, "pid", "output"),
		noRun: []string{"-h", "-V", "--help", "--version", "-p", "--pid"}},
	"pkexec": {long: with(longFlags("disable-internal-agent", "keep-cwd", "help", "version"), 1, "user"),
		noRun: []string{"--help", "--version"}, shellIfEmpty: true},
	"sshpass": {flags: "ehVv", values: "pfdP", noRun: []string{"-h", "-V"}},
	"ionice": {flags: "thV", values: "cnpPu", long: with(longFlags("ignore", "help", "version"), 1, "class",
		"classdata", "pid", "pgid", "uid"),
		noRun: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid", "-h", "-V", "--help", "--version"}},
	"firejail": {anyLong: true, program: []string{"--shell"}, env: []string{"--env"},
		noRun: []string{"--help", "--version", "--list", "--tree", "--top", "--debug-syscalls", "--debug-caps"},
		code:  []string{"--join", "--join-or-start", "--profile", "--include"}, shellIfEmpty: true},
	"valgrind": {flags: "hqv", anyLong: true, noRun: []string{"-h", "--help", "--version", "--help-debug"},
		code: []string{"--db-command", "--db-attach"}},
	"fakeroot": {flags: "uhv", values: "isb", long: with(longFlags("unknown-is-real", "help", "version"), 1, "lib", "faked"),
		noRun: []string{"-h", "-v", "--help", "--version"}, program: []string{"--faked"}, code: []string{"-l", "--lib"},
		shellIfEmpty: true},
	"bwrap": {long: with(with(with(longFlags("unshare-all", "unshare-user", "unshare-user-try", "unshare-ipc",
		"unshare-pid", "unshare-net", "unshare-uts", "unshare-cgroup", "unshare-cgroup-try", "share-net",
		"die-with-parent", "as-pid-1", "new-session", "clearenv", "disable-userns", "assert-userns-disabled",
		"level-prefix", "help", "version"), 1, "unsetenv", "chdir", "uid", "gid", "hostname", "proc", "dev",
		"tmpfs", "mqueue", "dir", "remount-ro", "exec-label", "file-label", "seccomp", "add-seccomp-fd",
		"block-fd", "userns-block-fd", "info-fd", "json-status-fd", "sync-fd", "lock-file", "cap-add",
		"cap-drop", "perms", "size", "userns", "userns2", "pidns", "argv0", "overlay-src", "tmp-overlay",
		"ro-overlay", "args"), 2, "bind", "bind-try", "ro-bind", "ro-bind-try", "dev-bind", "dev-bind-try",
		"symlink", "setenv", "file", "bind-data", "ro-bind-data", "chmod", "bind-fd", "ro-bind-fd"), 3, "overlay"),
		noRun: []string{"--help", "--version"}, code: []string{"--args", "--seccomp", "--add-seccomp-fd"},
		env: []string{"--setenv"}, newRootAlways: true},
	"proot": {flags: "0hVln", values: "rRbmqwkvpSi", long: with(longFlags("root-id", "help", "version", "link2symlink",
		"kill-on-exit", "netcoop"), 1, "rootfs", "bind", "mount", "qemu", "pwd", "cwd", "kernel-release",
		"verbose", "change-id", "port"),
		noRun: []string{"-h", "-V", "--help", "--version"}, text: []string{"-q", "--qemu"}, shellIfEmpty: true,
		newRootAlways: true},
	"dtach": {flags: "Ezr", values: "nAce", noRun: []string{"-a", "-p"}, operands: 0},
}

// opaqueLaunchers are programs that start a command given in their
// arguments whose options are not analysed: what they run cannot be
// checked, so any use other than asking for help or the version is
// unanalysable.
var opaqueLaunchers = map[string]bool{
	"perf": true, "rr": true, "heaptrack": true, "uftrace": true, "trickle": true, "cpulimit": true,
	"nix-shell": true, "toolbox": true, "distrobox": true, "distrobox-enter": true, "flatpak-spawn": true,
	"schroot": true, "systemd-nspawn": true, "machinectl": true, "xterm": true, "gnome-terminal": true,
	"konsole": true, "kitty": true, "alacritty": true, "gosu": true, "su-exec": true, "setuidgid": true,
	"chpst": true, "envdir": true, "envuidgid": true, "softlimit": true, "daemonize": true,
	"start-stop-daemon": true, "entr": true, "rlwrap": true, "eatmydata": true, "nocache": true,
	"faketime": true, "torsocks": true, "proxychains": true, "proxychains4": true, "tsocks": true,
	"abduco": true, "nq": true, "chronic": true, "ifne": true, "retry": true, "hyperfine": true,
	"tini": true, "dumb-init": true, "catatonit": true, "lckdo": true, "run-one": true, "timelimit": true,
	"systemd-inhibit": true, "setarch": true, "linux32": true, "linux64": true, "i386": true,
	"x86_64": true, "uname26": true, "numactl": true, "cgexec": true, "capsh": true, "catchsegv": true,
	"sem": true, "systemd-run": true, "screen": true, "expect": true, "with-contenv": true,
	"s6-setuidgid": true, "unbuffer": true, "time-limit": true, "sandbox-exec": true, "caffeinate": true,
	"arch": true, "firejail-launcher": true, "xargs-cmd": true,
}

// launch follows the command a launcher starts.
func (z *analyzer) launch(prog string, l launcher, args []field, ctx runCtx) {
	i := 0
	newRoot := l.newRootAlways
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
		case strings.HasPrefix(v, "--") && len(v) > 2:
			i++
			name, value, has := strings.Cut(v[2:], "=")
			full, n, ok := longOption(l, name)
			if !ok {
				z.fail("%s has the option %s, which is not known, so the command it starts cannot be found", prog, quote(v))
				return
			}
			opt := option{name: "--" + full, value: field{val: value, src: a.src}, has: has}
			if !has && n > 0 {
				if i+n > len(args) {
					return
				}
				vals := args[i : i+n]
				i += n
				opt.value, opt.has = vals[0], true
				if full == "setenv" { // bwrap --setenv NAME VALUE
					opt.value = field{val: vals[0].val + "=" + vals[1].val, src: vals[1].src,
						unknown: vals[0].unknown || vals[1].unknown}
				}
			}
			if !z.launcherOption(prog, l, opt, &newRoot, ctx) {
				return
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			i++
			for j := 1; j < len(v); j++ {
				c := v[j]
				opt := option{name: "-" + string(c)}
				switch {
				case strings.IndexByte(l.optional, c) >= 0 && (strings.IndexByte(l.values, c) < 0 || j+1 < len(v)):
					opt.value, opt.has = field{val: v[j+1:], src: a.src}, j+1 < len(v)
					j = len(v)
				case strings.IndexByte(l.values, c) >= 0:
					opt.value, opt.has = field{val: v[j+1:], src: a.src}, true
					if j+1 == len(v) {
						if i >= len(args) {
							return
						}
						opt.value = args[i]
						i++
					}
					j = len(v)
				case strings.IndexByte(l.flags, c) >= 0:
				default:
					z.fail("%s has the option -%c, which is not known, so the command it starts cannot be found", prog, c)
					return
				}
				if !z.launcherOption(prog, l, opt, &newRoot, ctx) {
					return
				}
			}
		default:
			break options
		}
	}
	if newRoot {
		z.noteDir("", false) // paths are then resolved in another root
	}
	for k := 0; k < l.operands; k++ {
		if i >= len(args) {
			return
		}
		if args[i].unknown {
			z.unknownBefore(prog, args[i])
			return
		}
		i++
	}
	rest := args[min(i, len(args)):]
	if len(rest) == 0 {
		switch {
		case l.shellIfEmpty:
			z.fail("%s without a command starts a shell that reads commands from its input", prog)
		case ctx.trailing:
			z.fail("%s run by xargs takes the program to run from the input of xargs", prog)
		}
		return
	}
	z.command(rest, "", ctx)
}

// longOption finds the long option name (perhaps abbreviated) of a
// launcher: its full name and how many values follow it.
func longOption(l launcher, name string) (string, int, bool) {
	if n, ok := l.long[name]; ok {
		return name, max(n, 0), true
	}
	for full, n := range l.long {
		if longIs(name, full) {
			return full, max(n, 0), true
		}
	}
	if l.anyLong && name != "" {
		return name, 0, true
	}
	return "", 0, false
}

// launcherOption judges one option of a launcher, and reports whether the
// command line may go on: false when no command runs or the option makes
// the text unanalysable.
func (z *analyzer) launcherOption(prog string, l launcher, o option, newRoot *bool, ctx runCtx) bool {
	name := o.name
	switch {
	case slices.Contains(l.noRun, name):
		return false
	case slices.Contains(l.code, name):
		z.fail("%s %s loads code or commands that cannot be checked", prog, name)
		return false
	case !o.has:
	case slices.Contains(l.env, name):
		if o.value.unknown {
			z.unknownBefore(prog, o.value)
			return false
		}
		if n, v, ok := strings.Cut(o.value.val, "="); ok {
			z.checkEnvName(n)
			z.envValue(n, field{val: v, src: o.value.src}, ctx)
		}
	case slices.Contains(l.program, name):
		if o.value.unknown {
			z.unknownBefore(prog, o.value)
			return false
		}
		z.command([]field{o.value}, "", runCtx{})
	case slices.Contains(l.text, name):
		z.shellText(prog+" "+name, o.value, ctx)
	case slices.Contains(l.pipeText, name):
		if o.value.unknown {
			if o.value.lead == "" || strings.HasPrefix(o.value.lead, "|") || strings.HasPrefix(o.value.lead, "!") {
				z.unknownBefore(prog, o.value)
				return false
			}
		} else if t, ok := strings.CutPrefix(o.value.val, "|"); ok {
			z.shellText(prog+" "+name, field{val: t, src: o.value.src}, ctx)
		} else if t, ok := strings.CutPrefix(o.value.val, "!"); ok {
			z.shellText(prog+" "+name, field{val: t, src: o.value.src}, ctx)
		}
	}
	if slices.Contains(l.newRoot, name) {
		*newRoot = true
	}
	return true
}

// opaque records a launcher whose command cannot be found.
func (z *analyzer) opaque(prog string, args []field) {
	if len(args) == 1 && !args[0].unknown && slices.Contains([]string{"--version", "-version", "--help", "-h", "-V"}, args[0].val) {
		return
	}
	if len(args) == 0 && !slices.Contains([]string{"screen", "expect", "xterm", "gnome-terminal", "konsole", "kitty", "alacritty", "toolbox", "distrobox", "nix-shell", "machinectl", "schroot", "systemd-nspawn", "capsh", "rlwrap"}, prog) {
		return
	}
	z.fail("%s runs a command or code given in its arguments, whose options are not analysed, so what it runs cannot be checked", prog)
}
