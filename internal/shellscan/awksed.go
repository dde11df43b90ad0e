package shellscan

import (
	"strings"
)

// awk and sed run shell commands from their scripts: awk's system(),
// pipes to and from commands and gawk's extensions, GNU sed's e command and
// s///e flag. Their scripts are scanned for these; a script read from a file
// cannot be judged.

// awk checks the program of an awk command.
func (z *analyzer) awk(prog string, args []field) {
	spec := optSpec{short: "FvfEilWe", optional: "dDopL", permute: false, long: []string{
		"field-separator", "assign", "file", "exec", "include", "load", "source"}}
	opts, operands, ok := z.scanOptions(prog, spec, args)
	if !ok {
		return
	}
	var texts []field
	fromFile, sandbox := false, false
	for _, o := range opts {
		switch {
		case o.is("-f", "file"), o.is("-E", "exec"), o.is("-i", "include"):
			fromFile = true
		case o.is("-l", "load"):
			z.codeFile(prog, o, "loads an extension library")
			return
		case o.is("-e", "source"):
			texts = append(texts, o.value)
		case o.is("-W"):
			if o.value.unknown || strings.HasPrefix(o.value.val, "e") || strings.HasPrefix(o.value.val, "f") {
				fromFile = true
			}
		case o.is("-S", "sandbox"):
			sandbox = true
		}
	}
	if fromFile {
		z.fail("%s runs a program read from a file, whose system() and pipes cannot be checked", prog)
		return
	}
	if len(texts) == 0 && len(operands) > 0 {
		texts = append(texts, operands[0])
	}
	for _, t := range texts {
		if t.unknown {
			z.fail("%s runs the program %s, which is only known when the command runs", prog, t.src)
			return
		}
		if sandbox {
			continue
		}
		if why := awkRunsCommands(t.val); why != "" {
			z.fail("%s program %s %s, which can run any program and cannot be checked", prog, quote(t.val), why)
		}
	}
}

// awkRegexAfter are the keywords after which a slash starts a regular
// expression rather than a division.
var awkRegexAfter = map[string]bool{"print": true, "printf": true, "return": true, "case": true, "in": true}

// awkRunsCommands reports how an awk program can run commands, or "" when
// it cannot: a call of system, a pipe to or from a command (| or |&), or
// gawk's @ forms (indirect calls, which reach system too, @load and
// @include). Strings, regular expressions and comments are skipped, except
// that the name system counts anywhere.
func awkRunsCommands(src string) string {
	if hasWord(src, "system") {
		return "calls system()"
	}
	regexOK := true // a slash here starts a regular expression
	word := ""
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return "has an unterminated string"
			}
			i, regexOK, word = j, false, ""
		case c == '/' && (regexOK || awkRegexAfter[word]):
			j, bracket := i+1, false
			for j < len(src) && (bracket || src[j] != '/') && src[j] != '\n' {
				switch {
				case src[j] == '\\':
					j++
				case src[j] == '[':
					bracket = true
				case src[j] == ']':
					bracket = false
				}
				j++
			}
			if j >= len(src) || src[j] != '/' {
				return "has an unterminated regular expression"
			}
			i, regexOK, word = j, false, ""
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			regexOK, word = true, ""
		case c == '|':
			if i+1 < len(src) && src[i+1] == '|' {
				i++
				regexOK, word = true, ""
				continue
			}
			return "pipes to or from a command"
		case c == '@':
			return "uses gawk's @ forms (indirect calls, @load, @include)"
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9' || src[j] == '.') {
				j++
			}
			word = src[i:j]
			i = j - 1
			regexOK = false
		case c == ' ' || c == '\t' || c == '\\':
		case c == ')' || c == ']' || c == '$':
			regexOK, word = false, ""
		case (c == '+' || c == '-') && i+1 < len(src) && src[i+1] == c:
			// ++ and -- end an operand when postfix: a slash after them
			// divides.
			i++
			regexOK, word = false, ""
		default:
			regexOK, word = true, ""
		}
	}
	return ""
}

// hasWord reports whether s holds w as a whole word.
func hasWord(s, w string) bool {
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isWord(s[j-1])) && (end == len(s) || !isWord(s[end])) {
			return true
		}
		i = j + 1
	}
}

// sed checks the script of a sed command: the e command and the e flag of
// s run shell commands; w and W write files, r and R read them.
func (z *analyzer) sed(prog string, args []field, ctx runCtx) {
	spec := optSpec{short: "efl", optional: "i", permute: true, long: []string{
		"expression", "file", "line-length"}}
	opts, operands, ok := z.scanOptions(prog, spec, args)
	if !ok {
		return
	}
	var scripts []string
	sandbox := false
	for _, o := range opts {
		switch {
		case o.is("-e", "expression"):
			if o.value.unknown {
				z.fail("%s runs the script %s, which is only known when the command runs", prog, o.value.src)
				return
			}
			scripts = append(scripts, o.value.val)
		case o.is("-f", "file"):
			z.fail("%s runs a script read from a file, whose e commands cannot be checked", prog)
			return
		case o.is("", "sandbox"):
			sandbox = true
		}
	}
	if len(scripts) == 0 && len(operands) > 0 {
		if operands[0].unknown {
			z.fail("%s runs the script %s, which is only known when the command runs", prog, operands[0].src)
			return
		}
		scripts = append(scripts, operands[0].val)
	}
	p := sedScript{src: strings.Join(scripts, "\n")}
	if err := p.parse(); err != "" {
		z.fail("the %s script %s cannot be analysed (%s)", prog, quote(p.src), err)
		return
	}
	if sandbox {
		return
	}
	for _, e := range p.exec {
		if e == "" {
			z.fail("the %s script %s runs text it computes as a command, which cannot be checked", prog, quote(p.src))
			continue
		}
		z.shellText(prog+" e", field{val: e, src: quote(e)}, ctx)
	}
	for _, w := range p.writes {
		z.addPath(field{val: w}, PathWrite)
	}
	for _, r := range p.reads {
		z.addPath(field{val: r}, PathRead)
	}
}

// sedScript is a GNU sed script being parsed.
type sedScript struct {
	src    string
	i      int
	exec   []string // the commands of e; "" for e alone or s///e
	writes []string // files of w, W and s///w
	reads  []string // files of r and R
}

func (p *sedScript) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func (p *sedScript) skipSpace() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

// toEOL returns the rest of the line, without leading blanks.
func (p *sedScript) toEOL() string {
	p.skipSpace()
	j := strings.IndexByte(p.src[p.i:], '\n')
	if j < 0 {
		j = len(p.src) - p.i
	}
	s := p.src[p.i : p.i+j]
	p.i += j
	return s
}

// delimited reads text up to the unescaped delimiter d and steps over it.
func (p *sedScript) delimited(d byte) bool {
	for p.i < len(p.src) {
		c := p.src[p.i]
		p.i++
		switch {
		case c == '\\':
			p.i++
		case c == d:
			return true
		case c == '\n' && d != '\n':
			// GNU sed accepts a newline in a regex only escaped.
			return false
		}
	}
	return false
}

// address skips one address, if any.
func (p *sedScript) address() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		for c := p.peek(); c >= '0' && c <= '9' || c == '~'; c = p.peek() {
			p.i++
		}
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		p.i++
		d := byte('/')
		if c == '\\' {
			d = p.peek()
			p.i++
		}
		if !p.delimited(d) {
			return false
		}
		for c := p.peek(); c == 'I' || c == 'M'; c = p.peek() {
			p.i++
		}
	case c == '+' || c == '~':
		p.i++
		for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
			p.i++
		}
	}
	return true
}

// parse reads the whole script and returns what stops it, or "".
func (p *sedScript) parse() string {
	for {
		for c := p.peek(); c == ' ' || c == '\t' || c == '\n' || c == ';'; c = p.peek() {
			p.i++
		}
		if p.i >= len(p.src) {
			return ""
		}
		if !p.address() {
			return "an unterminated address"
		}
		p.skipSpace()
		if p.peek() == ',' {
			p.i++
			p.skipSpace()
			if !p.address() {
				return "an unterminated address"
			}
		}
		p.skipSpace()
		for p.peek() == '!' {
			p.i++
			p.skipSpace()
		}
		if p.i >= len(p.src) {
			return "an address without a command"
		}
		c := p.src[p.i]
		p.i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			p.skipSpace()
			for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
				p.i++
			}
		case '#':
			p.toEOL()
		case ':', 'b', 't', 'T', 'v':
			p.skipSpace()
			for c := p.peek(); c != 0 && c != '\n' && c != ';'; c = p.peek() {
				p.i++
			}
		case 'a', 'i', 'c':
			// Text to the end of the line, continued by a backslash.
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				if p.src[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
		case 'r', 'R':
			p.reads = append(p.reads, p.toEOL())
		case 'w', 'W':
			p.writes = append(p.writes, p.toEOL())
		case 'e':
			p.exec = append(p.exec, strings.TrimSpace(p.toEOL()))
		case 's', 'y':
			d := p.peek()
			if d == 0 || d == '\n' || d == '\\' {
				return "a bad delimiter"
			}
			p.i++
			pattern := p.delimited(d)
			if !pattern || !p.delimited(d) {
				return "an unterminated " + string(c) + " command"
			}
			if c == 'y' {
				continue
			}
			for done := false; !done; {
				switch f := p.peek(); {
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
					p.i++
				case f == 'e':
					p.i++
					p.exec = append(p.exec, "")
				case f == 'w':
					p.i++
					p.writes = append(p.writes, p.toEOL())
					done = true
				default:
					done = true
				}
			}
		default:
			return "the unknown command " + quote(string(c))
		}
	}
}
