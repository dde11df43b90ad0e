package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseTOML decodes the subset of TOML the models.dev data uses: tables,
// arrays of tables, dotted keys, basic and literal strings, integers and
// floats (with underscores), booleans, arrays and inline tables. Anything
// else is an error, so a new construct in the data is noticed rather than
// misread.
func parseTOML(src string) (map[string]any, error) {
	p := &tomlParser{src: src, line: 1}
	root := map[string]any{}
	cur := root
	for {
		p.skipSpaceAndComments(true)
		if p.eof() {
			return root, nil
		}
		if p.peek() == '[' {
			array := strings.HasPrefix(p.src[p.pos:], "[[")
			if array {
				p.pos += 2
			} else {
				p.pos++
			}
			path, err := p.keyPath()
			if err != nil {
				return nil, err
			}
			p.skipSpace()
			closing := "]"
			if array {
				closing = "]]"
			}
			if !strings.HasPrefix(p.src[p.pos:], closing) {
				return nil, p.errorf("expected %s", closing)
			}
			p.pos += len(closing)
			if cur, err = p.table(root, path, array); err != nil {
				return nil, err
			}
			if err := p.endOfLine(); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.keyValue(cur); err != nil {
			return nil, err
		}
		if err := p.endOfLine(); err != nil {
			return nil, err
		}
	}
}

type tomlParser struct {
	src  string
	pos  int
	line int
}

func (p *tomlParser) eof() bool { return p.pos >= len(p.src) }

func (p *tomlParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.src[p.pos]
}

func (p *tomlParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", p.line, fmt.Sprintf(format, args...))
}

// skipSpace skips blanks on the current line.
func (p *tomlParser) skipSpace() {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t') {
		p.pos++
	}
}

// skipSpaceAndComments skips blanks and comments, and newlines too when
// newlines is set.
func (p *tomlParser) skipSpaceAndComments(newlines bool) {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '\n' && newlines:
			p.pos++
			p.line++
		case c == '#':
			for !p.eof() && p.peek() != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *tomlParser) endOfLine() error {
	p.skipSpaceAndComments(false)
	if p.eof() {
		return nil
	}
	if p.peek() != '\n' {
		return p.errorf("unexpected %q after value", p.peek())
	}
	p.pos++
	p.line++
	return nil
}

// table finds or creates the table a header names; for an array of
// tables it appends a new one.
func (p *tomlParser) table(root map[string]any, path []string, array bool) (map[string]any, error) {
	t := root
	for i, k := range path {
		last := i == len(path)-1
		v, ok := t[k]
		switch {
		case !ok && last && array:
			n := map[string]any{}
			t[k] = []any{n}
			return n, nil
		case !ok:
			n := map[string]any{}
			t[k] = n
			t = n
		case last && array:
			list, isList := v.([]any)
			if !isList {
				return nil, p.errorf("%s is not an array of tables", strings.Join(path, "."))
			}
			n := map[string]any{}
			t[k] = append(list, n)
			return n, nil
		default:
			switch x := v.(type) {
			case map[string]any:
				t = x
			case []any:
				if len(x) == 0 {
					return nil, p.errorf("empty array at %s", k)
				}
				m, isMap := x[len(x)-1].(map[string]any)
				if !isMap {
					return nil, p.errorf("%s is not a table", k)
				}
				t = m
			default:
				return nil, p.errorf("%s is not a table", k)
			}
		}
	}
	return t, nil
}

func (p *tomlParser) keyValue(t map[string]any) error {
	path, err := p.keyPath()
	if err != nil {
		return err
	}
	p.skipSpace()
	if p.peek() != '=' {
		return p.errorf("expected = after key %s", strings.Join(path, "."))
	}
	p.pos++
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return err
	}
	for _, k := range path[:len(path)-1] {
		n, ok := t[k].(map[string]any)
		if !ok {
			n = map[string]any{}
			t[k] = n
		}
		t = n
	}
	k := path[len(path)-1]
	if _, dup := t[k]; dup {
		return p.errorf("duplicate key %s", k)
	}
	t[k] = v
	return nil
}

func (p *tomlParser) keyPath() ([]string, error) {
	var path []string
	for {
		p.skipSpace()
		var k string
		switch c := p.peek(); {
		case c == '"':
			s, err := p.basicString()
			if err != nil {
				return nil, err
			}
			k = s
		case c == '\'':
			s, err := p.literalString()
			if err != nil {
				return nil, err
			}
			k = s
		default:
			start := p.pos
			for !p.eof() && isBareKey(p.peek()) {
				p.pos++
			}
			if p.pos == start {
				return nil, p.errorf("expected a key, found %q", p.peek())
			}
			k = p.src[start:p.pos]
		}
		path = append(path, k)
		p.skipSpace()
		if p.peek() != '.' {
			return path, nil
		}
		p.pos++
	}
}

func isBareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func (p *tomlParser) value() (any, error) {
	switch c := p.peek(); {
	case c == '"':
		if strings.HasPrefix(p.src[p.pos:], `"""`) {
			return nil, p.errorf("multi-line strings are not supported")
		}
		return p.basicString()
	case c == '\'':
		if strings.HasPrefix(p.src[p.pos:], `'''`) {
			return nil, p.errorf("multi-line strings are not supported")
		}
		return p.literalString()
	case c == '[':
		return p.array()
	case c == '{':
		return p.inlineTable()
	case strings.HasPrefix(p.src[p.pos:], "true"):
		p.pos += 4
		return true, nil
	case strings.HasPrefix(p.src[p.pos:], "false"):
		p.pos += 5
		return false, nil
	}
	return p.number()
}

func (p *tomlParser) number() (any, error) {
	start := p.pos
	for !p.eof() && strings.IndexByte("+-0123456789._eE", p.peek()) >= 0 {
		p.pos++
	}
	raw := strings.ReplaceAll(p.src[start:p.pos], "_", "")
	if raw == "" {
		return nil, p.errorf("unexpected %q", p.peek())
	}
	if strings.ContainsAny(raw, ".eE") {
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return nil, p.errorf("bad number %q", raw)
		}
		return f, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return nil, p.errorf("bad number %q", raw)
	}
	return float64(n), nil
}

func (p *tomlParser) basicString() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for {
		if p.eof() || p.peek() == '\n' {
			return "", p.errorf("unterminated string")
		}
		c := p.peek()
		switch c {
		case '"':
			p.pos++
			return b.String(), nil
		case '\\':
			p.pos++
			e := p.peek()
			p.pos++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if p.pos+n > len(p.src) {
					return "", p.errorf("short unicode escape")
				}
				r, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", p.errorf("bad unicode escape")
				}
				b.WriteRune(rune(r))
				p.pos += n
			default:
				return "", p.errorf("bad escape \\%c", e)
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

func (p *tomlParser) literalString() (string, error) {
	p.pos++
	end := strings.IndexAny(p.src[p.pos:], "'\n")
	if end < 0 || p.src[p.pos+end] != '\'' {
		return "", p.errorf("unterminated literal string")
	}
	s := p.src[p.pos : p.pos+end]
	p.pos += end + 1
	return s, nil
}

func (p *tomlParser) array() (any, error) {
	p.pos++ // [
	out := []any{}
	for {
		p.skipSpaceAndComments(true)
		if p.peek() == ']' {
			p.pos++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skipSpaceAndComments(true)
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
		default:
			return nil, p.errorf("expected , or ] in array, found %q", p.peek())
		}
	}
}

func (p *tomlParser) inlineTable() (any, error) {
	p.pos++ // {
	out := map[string]any{}
	p.skipSpace()
	if p.peek() == '}' {
		p.pos++
		return out, nil
	}
	for {
		if err := p.keyValue(out); err != nil {
			return nil, err
		}
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			return out, nil
		default:
			return nil, p.errorf("expected , or } in inline table, found %q", p.peek())
		}
	}
}
