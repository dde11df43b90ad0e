package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// layer is one parsed config source.
type layer struct {
	name string
	cfg  *Config
	keys []string // top-level keys in file order
}

// ParseOptions say how to resolve what a config text refers to.
type ParseOptions struct {
	// Name is the file name or environment variable used in errors.
	Name string
	// Dir is the directory {file:} paths are relative to.
	Dir string
	// Home is the directory ~/ stands for.
	Home string
	// Getenv looks up {env:} variables; nil means none are set.
	Getenv func(string) string
	// NoSubstitute leaves {env:} and {file:} out: each is replaced by
	// nothing. Files of a project the user has not trusted are read so,
	// since a value could carry a secret to a server the project names.
	NoSubstitute bool
}

// Parse parses one config text: JSONC with {env:} and {file:} substitution,
// validated against the schema. Errors are *Error values.
func Parse(data []byte, opts ParseOptions) (*Config, error) {
	l, err := parseLayer(data, opts)
	if err != nil {
		return nil, err
	}
	return l.cfg, nil
}

var hujsonPos = regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`)

func parseLayer(data []byte, opts ParseOptions) (*layer, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	src := &source{name: opts.Name, orig: data}
	if err := src.substitute(getenv, opts.Dir, opts.Home, opts.NoSubstitute); err != nil {
		return nil, err
	}
	l := &layer{name: opts.Name, cfg: &Config{}}
	if len(bytes.TrimSpace(src.text)) == 0 {
		return l, nil
	}
	if at := tooDeep(src.text); at >= 0 {
		return nil, src.errAt(at, "", fmt.Sprintf("syntax error: arrays and objects nest more than %d levels deep", maxNesting))
	}
	v, err := hujson.Parse(src.text)
	if err != nil {
		return nil, syntaxError(src, err)
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, src.errAt(v.StartOffset, "", "the config must be a JSON object, got "+kindName(v.Value.Kind()))
	}
	c := &checker{src: src}
	if err := c.checkStruct(&v, typeConfig, ""); err != nil {
		return nil, err
	}
	for _, m := range obj.Members {
		l.keys = append(l.keys, m.Name.Value.(hujson.Literal).String())
	}
	v.Standardize()
	std := v.Pack()
	if err := json.Unmarshal(std, l.cfg); err != nil {
		return nil, decodeError(src, err)
	}
	c2 := l.cfg
	for _, raw := range []*json.RawMessage{&c2.LSP, &c2.Formatter, &c2.References, &c2.Reference, &c2.Experimental.Policies} {
		*raw = compactRaw(*raw)
	}
	return l, nil
}

// compactRaw drops the insignificant space of a raw JSON value, so equal
// values have equal bytes.
func compactRaw(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// syntaxError turns a hujson parse error into an *Error located in the
// original text.
func syntaxError(src *source, err error) error {
	m := hujsonPos.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{File: src.name, Msg: "syntax error: " + strings.TrimPrefix(err.Error(), "hujson: ")}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	e := src.errAt(offsetOf(src.text, line, col), "", "syntax error: "+m[3])
	return e
}

// offsetOf is the byte offset of 1-based line and column in b.
func offsetOf(b []byte, line, col int) int {
	n := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(b[n:], '\n')
		if i < 0 {
			return len(b)
		}
		n += i + 1
	}
	return min(n+col-1, len(b))
}

// decodeError locates an encoding/json error. The checker catches nearly
// every problem first; what is left are errors from the custom decoders.
func decodeError(src *source, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return src.errAt(int(te.Offset), te.Field, fmt.Sprintf("%s: want %s, got %s", te.Field, te.Type, te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return src.errAt(int(se.Offset), "", "syntax error: "+se.Error())
	}
	return &Error{File: src.name, Msg: err.Error()}
}
