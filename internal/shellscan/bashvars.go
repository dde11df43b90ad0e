package shellscan

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates the values of variables used in arithmetic, array
// subscripts and some builtins as expressions, and an expression such as
// a[$(cmd)] runs cmd. Text that reaches such a place from outside what the
// command shows can therefore run any program. The checks here accept the
// variables whose every assignment in the text is an integer and fail
// closed on the rest.

// varFacts is what a shell text tells about its variables.
type varFacts struct {
	assigned map[string]bool // given a value somewhere in the text
	tainted  map[string]bool // given something other than an integer
	integer  map[string]bool // declared with the integer attribute
	assoc    map[string]bool // declared as associative arrays
	arrays   map[string]bool // assigned or declared as arrays
}

func newVarFacts() *varFacts {
	return &varFacts{
		assigned: make(map[string]bool),
		tainted:  make(map[string]bool),
		integer:  make(map[string]bool),
		assoc:    make(map[string]bool),
		arrays:   make(map[string]bool),
	}
}

// numericVars are shell variables that always hold a number unless the
// text assigns them.
var numericVars = map[string]bool{
	"#": true, "?": true, "$": true, "!": true, "RANDOM": true, "SRANDOM": true, "LINENO": true,
	"SECONDS": true, "EPOCHSECONDS": true, "BASHPID": true, "PPID": true, "UID": true, "EUID": true,
	"OPTIND": true, "COLUMNS": true, "LINES": true, "SHLVL": true,
}

// numeric reports whether a variable can only hold an integer.
func (v *varFacts) numeric(name string) bool {
	if v.tainted[name] {
		return false
	}
	return v.assigned[name] || numericVars[name]
}

func (v *varFacts) set(name string, integer bool) {
	v.assigned[name] = true
	if !integer {
		v.tainted[name] = true
	}
}

// scan records the assignments of a text before its commands are checked.
func (v *varFacts) scan(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name == nil {
				break
			}
			if n.Array != nil || n.Index != nil {
				v.arrays[n.Name.Value] = true
			}
			switch {
			case n.Naked:
				v.assigned[n.Name.Value] = true
			default:
				v.set(n.Name.Value, n.Array == nil && n.Index == nil && isIntegerWord(n.Value))
			}
		case *syntax.DeclClause:
			v.decl(n)
		case *syntax.WordIter:
			ok := true
			for _, w := range n.Items {
				ok = ok && isIntegerWord(w)
			}
			v.set(n.Name.Value, ok)
		case *syntax.BinaryArithm:
			if n.Op >= syntax.Assgn && n.Op <= syntax.PowAssgn {
				if name := arithName(n.X); name != "" {
					v.assigned[name] = true
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if name := arithName(n.X); name != "" {
					v.assigned[name] = true
				}
			}
		case *syntax.CallExpr:
			for _, name := range setByCommand(n.Args) {
				v.set(name, false)
			}
		}
		return true
	})
}

// decl records the attributes declare, local, typeset and friends give.
func (v *varFacts) decl(d *syntax.DeclClause) {
	integer, assoc, array := false, false, false
	for _, a := range d.Args {
		if a.Name == nil && a.Naked && a.Value != nil {
			if lit := a.Value.Lit(); strings.HasPrefix(lit, "-") {
				integer = integer || strings.ContainsRune(lit, 'i')
				assoc = assoc || strings.ContainsRune(lit, 'A')
				array = array || strings.ContainsAny(lit, "aA")
			}
			continue
		}
		if a.Name == nil {
			continue
		}
		if integer {
			v.integer[a.Name.Value] = true
		}
		if assoc {
			v.assoc[a.Name.Value] = true
		}
		if array {
			v.arrays[a.Name.Value] = true
		}
	}
}

// setByCommand lists the variables a builtin such as read assigns text to.
func setByCommand(words []*syntax.Word) []string {
	if len(words) == 0 {
		return nil
	}
	var names []string
	prev := ""
	for i, w := range words[1:] {
		lit := w.Lit()
		switch words[0].Lit() {
		case "read", "mapfile", "readarray", "getopts":
			if isName(lit) && !(words[0].Lit() == "getopts" && i == 0) {
				names = append(names, lit)
			}
		case "printf", "wait":
			if prev == "-v" || prev == "-p" {
				names = append(names, subscriptBase(lit))
			}
		}
		prev = lit
	}
	return names
}

func subscriptBase(s string) string {
	name, _, _ := strings.Cut(s, "[")
	return name
}

func arithName(x syntax.ArithmExpr) string {
	switch x := x.(type) {
	case *syntax.Word:
		if lit := x.Lit(); isName(lit) {
			return lit
		}
		if len(x.Parts) == 1 {
			if pe, ok := x.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil {
				return pe.Param.Value
			}
		}
	}
	return ""
}

// isIntegerWord reports whether a word always gives an integer: an integer
// literal, an arithmetic expansion, a length ${#x}, or a numeric special
// parameter such as $? or $#.
func isIntegerWord(w *syntax.Word) bool {
	if w == nil {
		return true // an empty value counts as 0
	}
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) == 1 {
		switch p := parts[0].(type) {
		case *syntax.ArithmExp:
			return true
		case *syntax.ParamExp:
			return p.Length || p.Param != nil && numericVars[p.Param.Value] && p.Exp == nil && p.Repl == nil && p.Slice == nil && !p.Excl
		}
	}
	s := strings.TrimPrefix(w.Lit(), "-")
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

// arithm checks the variables an arithmetic expression evaluates.
func (z *analyzer) arithm(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case nil:
	case *syntax.BinaryArithm:
		z.arithm(x.X)
		z.arithm(x.Y)
	case *syntax.UnaryArithm:
		z.arithm(x.X)
	case *syntax.ParenArithm:
		z.arithm(x.X)
	case *syntax.FlagsArithm:
		z.arithm(x.X)
	case *syntax.Word:
		z.arithmParts(x.Parts)
	}
}

func (z *analyzer) arithmParts(parts []syntax.WordPart) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if isName(p.Value) {
				z.arithRef(p.Value)
			}
		case *syntax.ParamExp:
			if p.Param != nil && !p.Length {
				z.arithRef(p.Param.Value)
			}
		case *syntax.SglQuoted:
			// Bash removes the quotes and evaluates the text inside as an
			// expression: '$(cmd)' in $(( )), (( )), a subscript or an
			// operand of [[ -eq ]] runs cmd.
			z.arithQuoted(p)
		case *syntax.DblQuoted:
			if dyn, _, _ := wordKind(p.Parts, true); dyn {
				z.arithmParts(p.Parts)
				continue
			}
			z.arithQuoted(p)
		case *syntax.CmdSubst:
			z.fail("arithmetic evaluates the output of a command substitution as an expression, which can run commands")
		}
	}
}

// arithQuoted checks quoted text inside an arithmetic context, which bash
// evaluates as an expression once the quotes are removed.
func (z *analyzer) arithQuoted(p syntax.WordPart) {
	s, err := expand.Literal(z.cfg, &syntax.Word{Parts: []syntax.WordPart{p}})
	if err != nil {
		z.fail("the quoted text %s in an arithmetic context cannot be expanded (%v)", z.print(&syntax.Word{Parts: []syntax.WordPart{p}}), err)
		return
	}
	z.arithText(s)
}

func (z *analyzer) arithRef(name string) {
	if z.vars.numeric(name) {
		return
	}
	z.fail("arithmetic evaluates the variable %s, whose value is not an integer known from the text; bash evaluates such a value as an expression, which can run commands", name)
}

// param checks a parameter expansion for forms that run text as code.
func (z *analyzer) param(p *syntax.ParamExp) {
	if p.Excl && p.Names == 0 {
		if w, ok := p.Index.(*syntax.Word); !ok || (w.Lit() != "@" && w.Lit() != "*") {
			z.fail("the indirect expansion ${!%s} names a variable only known when the command runs", paramName(p))
		}
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P") {
		z.fail("${%s@P} expands its value as a prompt, which can run commands", paramName(p))
	}
	if p.Index != nil && !z.vars.assoc[paramName(p)] {
		if w, ok := p.Index.(*syntax.Word); !ok || (w.Lit() != "@" && w.Lit() != "*") {
			z.arithm(p.Index)
		}
	}
	if p.Slice != nil {
		z.arithm(p.Slice.Offset)
		z.arithm(p.Slice.Length)
	}
}

func paramName(p *syntax.ParamExp) string {
	if p.Param == nil {
		return ""
	}
	return p.Param.Value
}

// test checks [[ ]] expressions: arithmetic comparisons evaluate their
// operands, and -v evaluates a subscript.
func (z *analyzer) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		if x.Op >= syntax.TsEql && x.Op <= syntax.TsGtr {
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := side.(*syntax.Word); ok {
					z.arithmParts(w.Parts)
				}
			}
			return
		}
		z.test(x.X)
		z.test(x.Y)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if w, ok := x.X.(*syntax.Word); ok {
				z.nameOperand("[[ -v ]]", z.fields([]*syntax.Word{w}))
			}
			return
		}
		z.test(x.X)
	case *syntax.ParenTest:
		z.test(x.X)
	}
}

// nameOperand checks words a builtin takes as variable names: a subscript
// in one is evaluated, so it must not hold an expansion.
func (z *analyzer) nameOperand(prog string, fs []field) {
	for _, f := range fs {
		if f.unknown {
			z.fail("%s takes a variable name from %s, which is only known when the command runs; a subscript in it could run commands", prog, f.src)
			return
		}
		if i := strings.IndexByte(f.val, '['); i >= 0 && strings.ContainsAny(f.val[i:], "$`") {
			z.fail("%s evaluates the subscript in %s, which holds an expansion that can run commands", prog, f.display())
			return
		}
	}
}

// nameArgs checks the variable-name operands of builtins that take them.
func (z *analyzer) nameArgs(prog string, args []field) {
	switch prog {
	case "unset", "declare", "typeset", "local", "export", "readonly", "let", "nameref":
		z.nameOperand(prog, args)
	case "read", "mapfile", "readarray":
		valued := "dinNptu" // options of read that take a value
		if prog != "read" {
			valued = "dnOsuCc"
		}
		var names []field
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a.unknown || !strings.HasPrefix(a.val, "-") || len(a.val) < 2 {
				names = append(names, a)
				continue
			}
			last := a.val[len(a.val)-1]
			if strings.IndexByte(valued, last) < 0 || i+1 >= len(args) {
				continue
			}
			i++
			if last == 'C' { // mapfile's callback is run as shell text
				z.shellText(prog+" -C", args[i], runCtx{})
			}
		}
		z.nameOperand(prog, names)
	case "getopts":
		if len(args) > 1 {
			z.nameOperand(prog, args[1:2])
		}
	case "printf", "wait", "test", "[":
		for i := 0; i+1 < len(args); i++ {
			if !args[i].unknown && (args[i].val == "-v" || (prog == "wait" && args[i].val == "-p")) {
				z.nameOperand(prog, args[i+1:i+2])
			}
		}
	}
}

// checkEnvName fails on assignments to variables that make bash run code:
// startup files, prompts, exported functions.
func (z *analyzer) checkEnvName(name string) {
	switch {
	case name == "BASH_ENV" || name == "ENV" || name == "PROMPT_COMMAND" || name == "PS0" || name == "PS1" ||
		name == "PS2" || name == "PS3" || name == "PS4" || name == "SHELLOPTS" || name == "BASHOPTS" ||
		strings.HasPrefix(name, "BASH_FUNC_"):
		z.fail("setting %s makes bash run code that is not part of the command", name)
	}
	if z.vars.integer[name] && z.vars.tainted[name] {
		z.fail("%s has the integer attribute, so the text assigned to it is evaluated as an expression, which can run commands", name)
	}
}

// decl records a declaration builtin as a command and checks its operands.
func (z *analyzer) decl(d *syntax.DeclClause) {
	prog := d.Variant.Value
	var args, names []field
	flags := ""
	for _, a := range d.Args {
		if a.Name == nil && a.Value != nil {
			fs := z.fields([]*syntax.Word{a.Value})
			for _, f := range fs {
				if !f.unknown && (strings.HasPrefix(f.val, "-") || strings.HasPrefix(f.val, "+")) {
					flags += f.val
					continue
				}
				if name, value, ok := strings.Cut(f.val, "="); ok && !f.unknown {
					// A quoted NAME=VALUE operand assigns as the
					// unquoted form would.
					z.declValue(prog, flags, name, field{val: value, src: f.src})
					z.envValue(name, field{val: value, src: f.src}, runCtx{})
					f = field{val: name, src: f.src}
				}
				names = append(names, f)
			}
			args = append(args, fs...)
			continue
		}
		if a.Name == nil {
			continue
		}
		z.checkEnvName(a.Name.Value)
		if a.Value != nil && strings.Contains(flags, "n") {
			// A name reference's value is a variable name, subscript included.
			z.nameOperand(prog+" -n", z.fields([]*syntax.Word{a.Value}))
		}
		if a.Value != nil && a.Array == nil && a.Index == nil {
			if fs := z.fields([]*syntax.Word{a.Value}); len(fs) == 1 {
				z.declValue(prog, flags, a.Name.Value, fs[0])
			}
		}
		src := z.print(a)
		args = append(args, field{src: src, unknown: true})
	}
	z.nameOperand(prog, names)
	text := prog
	if len(args) > 0 {
		text += " " + joinDisplay(args)
	}
	z.add(Command{Name: prog, Args: values(args), Text: text}, append([]string{prog}, values(args)...))
}

// declValue checks the value a declaration builtin gives a variable: a
// value that reads "(…)" given to an array (or with -a or -A) is parsed as
// a compound assignment, whose subscripts are evaluated and whose words
// are expanded, so text only known at run time could run commands there.
func (z *analyzer) declValue(prog, flags, name string, v field) {
	array := strings.ContainsAny(flags, "aA") || z.vars.arrays[name]
	if v.unknown {
		if array {
			z.fail("%s gives the array %s a value only known when the command runs, which bash parses as a compound assignment that can run commands", prog, name)
		}
		return
	}
	if strings.HasPrefix(v.val, "(") && strings.HasSuffix(v.val, ")") {
		if strings.ContainsRune(flags, 'A') {
			z.vars.assoc[name] = true
		}
		z.text(name + "=" + v.val)
	}
}

// letExpr checks one operand of let: a quoted operand is text that let
// evaluates as an expression.
func (z *analyzer) letExpr(x syntax.ArithmExpr) {
	w, ok := x.(*syntax.Word)
	if !ok || !slices.ContainsFunc(w.Parts, func(p syntax.WordPart) bool {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
		return false
	}) {
		z.arithm(x)
		return
	}
	for _, f := range z.fields([]*syntax.Word{w}) {
		if f.unknown {
			z.fail("let evaluates %s, which is only known when the command runs, as an expression that can run commands", f.src)
			continue
		}
		z.arithText(f.val)
	}
}

// arithText checks text that bash evaluates as an arithmetic expression.
func (z *analyzer) arithText(s string) {
	x, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Arithmetic(strings.NewReader(s))
	if err != nil {
		if strings.ContainsAny(s, "$`[") {
			z.fail("the expression %s cannot be analysed and may run commands", quote(s))
		}
		return
	}
	if x == nil {
		return
	}
	z.arithm(x)
	syntax.Walk(x, z.visit)
}

// compgen follows what compgen runs: the command of -C, and the
// expansions in the word list of -W, which bash expands as it would a
// command's words.
func (z *analyzer) compgen(args []field, ctx runCtx) {
	if ctx.trailing {
		z.fail("compgen run by xargs takes its options from the input of xargs")
		return
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.unknown {
			z.fail("the arguments of compgen include %s, which is only known when the command runs", a.src)
			return
		}
		if !strings.HasPrefix(a.val, "-") || a.val == "-" {
			continue
		}
		if a.val == "--" {
			return
		}
		for j := 1; j < len(a.val); j++ {
			c := a.val[j]
			if strings.IndexByte("oAGWFCXPSV", c) < 0 {
				continue
			}
			value := field{val: a.val[j+1:], src: a.src}
			if j+1 == len(a.val) {
				if i+1 >= len(args) {
					return
				}
				i++
				value = args[i]
			}
			switch c {
			case 'C':
				z.shellText("compgen -C", value, ctx)
			case 'W':
				z.wordList("compgen -W", value)
			case 'V':
				z.nameOperand("compgen -V", []field{value})
			}
			break
		}
	}
}

// wordList checks text whose words bash expands at run time (compgen -W):
// the substitutions in it run.
func (z *analyzer) wordList(prog string, v field) {
	if v.unknown {
		z.fail("%s expands the words %s, which are only known when the command runs", prog, v.src)
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(v.val), "")
	if err != nil {
		z.fail("%s expands the words %s, which do not parse (%v)", prog, quote(v.val), err)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ParamExp:
			syntax.Walk(n, z.visit)
			return false
		}
		return true
	})
}
