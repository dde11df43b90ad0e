package shellscan

import (
	"regexp"
	"slices"
	"strings"
)

// General interpreters given code on their command line (python -c, perl
// -e, node -e) or in their input (python3 - <<EOF) run code the analysis
// does not read: anything the shell could do, the code can. Such a command
// is recorded in Analysis.Inline and asked about unless a rule that names
// the interpreter allows it (see internal/approval). A script run by name
// (python3 script.py) is judged as any other command.

// Inline is a command that runs code given on its command line or in its
// input, in the language of the interpreter Program.
type Inline struct {
	Pattern string `json:"pattern"`
	Program string `json:"program"`
	// Reason says how the code is given, in words for the model.
	Reason string `json:"reason"`
}

// interp describes how an interpreter takes code.
type interp struct {
	code     string   // short options whose value is code (-c, -e)
	codeLong []string // long options whose value is code (--eval)
	values   string   // other short options with a value, attached or next
	// rest are short options that take the rest of their word as a value,
	// if any (perl -i.bak, -V:name).
	rest     string
	digits   string   // short options followed by optional digits (perl -l0)
	longVals []string // long options with a value in the next word
	// script are short options whose value is a file or module run as the
	// program (python -m, php -f): a run judged as today.
	script string
	// stdin marks interpreters that read their program from the input
	// when no script is named.
	stdin bool
	// noInput and noInputShort are options after which no program is
	// read from the input (node --test, php -S).
	noInput      []string
	noInputShort string
	// codeOption reports other options whose value is code (node
	// --import data:, perl -M with code).
	codeOption func(name, value string) bool
}

// interpreters are the interpreters whose inline code is recognised, by
// the name pattern of their programs.
var interpreters = []struct {
	name *regexp.Regexp
	spec interp
}{
	{regexp.MustCompile(`^(python|pypy)[0-9.]*$`), interp{code: "c", values: "WXQ", script: "m", stdin: true,
		longVals: []string{"check-hash-based-pycs"}}},
	{regexp.MustCompile(`^perl[0-9.]*$`), interp{code: "eE", values: "I", rest: "iCdDFxVmM", digits: "0l", stdin: true,
		codeOption: perlModule}},
	{regexp.MustCompile(`^(ruby|jruby|truffleruby)[0-9.]*$`), interp{code: "e", values: "CEFIr", rest: "iKTWx", digits: "0",
		stdin: true, longVals: []string{"encoding", "external-encoding", "internal-encoding"}}},
	{regexp.MustCompile(`^(node|nodejs)[0-9.]*$`), interp{code: "ep", codeLong: []string{"eval", "print"}, values: "rC",
		stdin: true, longVals: []string{"require", "import", "loader", "experimental-loader", "input-type", "conditions",
			"title", "env-file", "inspect-port", "redirect-warnings", "stack-trace-limit", "test-name-pattern"},
		noInput: []string{"test", "run", "v8-options", "completion-bash"},
		codeOption: func(name, value string) bool {
			return (name == "--import" || name == "--loader" || name == "--experimental-loader" || name == "-r" ||
				name == "--require") && strings.HasPrefix(value, "data:")
		}}},
	{regexp.MustCompile(`^bun$`), interp{code: "ep", codeLong: []string{"eval", "print"}}},
	{regexp.MustCompile(`^php[0-9.]*(-cli)?$`), interp{code: "rBRE", values: "cdztF", script: "f", stdin: true,
		noInputShort: "Smiv", noInput: []string{"ini", "re", "rf", "rc", "rz", "ri"},
		codeOption: func(name, value string) bool {
			return name == "-d" && (strings.Contains(value, "auto_prepend_file") || strings.Contains(value, "auto_append_file"))
		}}},
	{regexp.MustCompile(`^(lua|luajit)[0-9.]*$`), interp{code: "e", values: "lj", stdin: true}},
	{regexp.MustCompile(`^osascript$`), interp{code: "e", values: "ls", stdin: true}},
	{regexp.MustCompile(`^(rscript|r)$`), interp{code: "e"}},
	{regexp.MustCompile(`^julia$`), interp{code: "eE", codeLong: []string{"eval", "print"}, values: "LJCtp",
		stdin: true}},
	{regexp.MustCompile(`^(tclsh|wish)[0-9.]*$`), interp{stdin: true, longVals: []string{"encoding"}}},
	{regexp.MustCompile(`^(elixir|iex)$`), interp{code: "e", codeLong: []string{"eval"}, values: "r"}},
	{regexp.MustCompile(`^guile$`), interp{code: "c", values: "Ls"}},
	{regexp.MustCompile(`^racket$`), interp{code: "e", values: "fkrtl"}},
	{regexp.MustCompile(`^(groovy|scala|kotlin)$`), interp{code: "e"}},
}

// perlModule reports a perl -M or -m value that is more than a module
// name: perl runs "use VALUE;", so any other text is code.
func perlModule(name, value string) bool {
	if name != "-M" && name != "-m" {
		return false
	}
	mod, imports, _ := strings.Cut(strings.TrimPrefix(value, "-"), "=")
	for _, c := range mod {
		if c != '_' && c != ':' && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return true
		}
	}
	return strings.ContainsAny(imports, "{}()';\"$@`\\")
}

// interpreter records inline code run by a general interpreter, and
// reports whether prog is one.
func (z *analyzer) interpreter(prog string, args []field, ctx runCtx) bool {
	lower := strings.ToLower(prog)
	if lower == "deno" {
		if len(args) > 0 && !args[0].unknown && (args[0].val == "eval" || args[0].val == "repl") {
			z.inline(prog, "runs the code given to deno "+args[0].val)
		}
		return true
	}
	if lower == "pwsh" || lower == "powershell" {
		z.powershell(prog, args)
		return true
	}
	for _, in := range interpreters {
		if in.name.MatchString(lower) {
			z.interp(prog, in.spec, args, ctx)
			return true
		}
	}
	return false
}

// inline records that the current command runs code of prog that is not
// analysed.
func (z *analyzer) inline(prog, what string) {
	in := Inline{Pattern: z.current, Program: prog, Reason: prog + " " + what}
	if !slices.Contains(z.out.Inline, in) {
		z.out.Inline = append(z.out.Inline, in)
	}
}

// interp finds the inline code of one interpreter's command line.
func (z *analyzer) interp(prog string, spec interp, args []field, ctx runCtx) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			if operandLike(a) {
				return // a script named at run time: judged as a script
			}
			z.inline(prog, "an argument only known when the command runs could give it code")
			return
		}
		v := a.val
		switch {
		case v == "-":
			if spec.stdin {
				z.inline(prog, "reads its program from its input")
			}
			return
		case v == "--":
			if spec.stdin && i+1 == len(args) && !ctx.trailing {
				z.inline(prog, "reads its program from its input")
			}
			return
		case strings.HasPrefix(v, "--"):
			name, _, has := strings.Cut(v[2:], "=")
			switch {
			case name == "version" || strings.HasPrefix(name, "help") || slices.Contains(spec.noInput, name):
				return
			case slices.Contains(spec.codeLong, name):
				z.inline(prog, "runs code given in "+v)
				return
			case slices.Contains(spec.longVals, name) && !has:
				i++
				if i < len(args) && spec.codeOption != nil && spec.codeOption("--"+name, args[i].val) {
					z.inline(prog, "runs code given in "+v)
					return
				}
			case has && spec.codeOption != nil && spec.codeOption("--"+name, v[strings.IndexByte(v, '=')+1:]):
				z.inline(prog, "runs code given in "+v)
				return
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case strings.IndexByte(spec.code, c) >= 0:
					z.inline(prog, "runs code given with -"+string(c))
					return
				case strings.IndexByte(spec.script, c) >= 0:
					return // a module or script file: judged as a script
				case strings.IndexByte(spec.digits, c) >= 0:
					for j+1 < len(v) && (v[j+1] >= '0' && v[j+1] <= '9' || v[j+1] >= 'a' && v[j+1] <= 'f' && c == '0') {
						j++
					}
					continue
				case strings.IndexByte(spec.rest, c) >= 0:
					if spec.codeOption != nil && spec.codeOption("-"+string(c), v[j+1:]) {
						z.inline(prog, "runs code given with -"+string(c))
						return
					}
					if (c == 'm' || c == 'M') && j+1 == len(v) && i+1 < len(args) {
						i++
						if spec.codeOption != nil && spec.codeOption("-"+string(c), args[i].val) {
							z.inline(prog, "runs code given with -"+string(c))
							return
						}
					}
				case strings.IndexByte(spec.noInputShort, c) >= 0:
					return
				case strings.IndexByte(spec.values, c) >= 0:
					value := v[j+1:]
					if value == "" && i+1 < len(args) {
						i++
						value = args[i].val
					}
					if spec.codeOption != nil && spec.codeOption("-"+string(c), value) {
						z.inline(prog, "runs code given with -"+string(c))
						return
					}
				default:
					continue
				}
				break
			}
		default:
			return // a script: judged as any other command
		}
	}
	if spec.stdin && !ctx.trailing && !(len(args) == 1 && !args[0].unknown && isVersion(args[0].val)) {
		z.inline(prog, "reads its program from its input")
	}
}

// isVersion reports whether an option only asks for the version or help.
func isVersion(v string) bool {
	return slices.Contains([]string{"-V", "-v", "--version", "-h", "--help", "-version", "-help"}, v)
}

// powershell records inline code of pwsh and powershell: -Command (-c),
// -EncodedCommand (-e, -ec), -CommandWithArgs, or commands read from the
// input when no script is named.
func (z *analyzer) powershell(prog string, args []field) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			z.inline(prog, "an argument only known when the command runs could give it code")
			return
		}
		v := strings.ToLower(a.val)
		if !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "/") {
			return // a script
		}
		name := strings.TrimLeft(v, "-/")
		name, _, _ = strings.Cut(name, ":")
		switch {
		case name == "":
		case strings.HasPrefix("command", name), strings.HasPrefix("encodedcommand", name), name == "ec",
			strings.HasPrefix("commandwithargs", name), name == "cwa":
			z.inline(prog, "runs code given with "+a.val)
			return
		case strings.HasPrefix("file", name):
			return
		case strings.HasPrefix("version", name) && len(name) > 1, strings.HasPrefix("help", name), name == "?":
			return
		case slices.ContainsFunc([]string{"executionpolicy", "workingdirectory", "configurationname", "custompipename",
			"outputformat", "inputformat", "windowstyle", "settingsfile", "configurationfile", "psconsolefile",
			"version"}, func(full string) bool { return len(name) > 1 && strings.HasPrefix(full, name) }):
			i++
		}
	}
	z.inline(prog, "reads commands from its input")
}
