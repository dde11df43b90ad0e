package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/codeloop/codeloop/internal/frontmatter"
)

// FileError reports a Markdown definition file that could not be used.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// mdFile is one Markdown definition found under a directory: its path and
// the name derived from where it sits.
type mdFile struct {
	path string
	name string
}

// findMarkdown lists the *.md files under root/<sub> for each of subs, in
// name order within each. The name of a file is its path below <sub>,
// slash-separated, without ".md"; with flat set only files directly in
// <sub> count. A missing directory yields nothing.
func findMarkdown(root string, subs []string, flat bool) []mdFile {
	var out []mdFile
	for _, sub := range subs {
		dir := filepath.Join(root, sub)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		pattern := "**/*.md"
		if flat {
			pattern = "*.md"
		}
		matches, err := doublestar.Glob(os.DirFS(dir), pattern, doublestar.WithFilesOnly())
		if err != nil {
			continue
		}
		slices.Sort(matches)
		for _, m := range matches {
			out = append(out, mdFile{path: filepath.Join(dir, filepath.FromSlash(m)), name: strings.TrimSuffix(m, ".md")})
		}
	}
	return out
}

// parseFront splits data into frontmatter and body. Frontmatter written for
// Claude Code is often not valid YAML ("argument-hint: [file] [line]",
// "description: Use when: tests fail"); when it does not parse, top-level
// values that do not parse on their own are read as plain strings. Errors
// name the file.
func parseFront(p string, data []byte) (*yaml.Node, string, error) {
	front, rawBody, found, err := frontmatter.Split(data)
	if err != nil {
		return nil, "", &FileError{Path: p, Err: err}
	}
	body := string(rawBody)
	var doc yaml.Node
	if found {
		if err := yaml.Unmarshal(front, &doc); err != nil {
			doc = yaml.Node{}
			fixed, changed := quoteBadValues(front)
			if !changed || yaml.Unmarshal(fixed, &doc) != nil {
				return nil, "", &FileError{Path: p, Err: fmt.Errorf("invalid YAML in frontmatter: %w", err)}
			}
		}
	}
	var m *yaml.Node
	switch {
	case doc.Kind == 0:
	case doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode:
		m = doc.Content[0]
	case doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Tag == "!!null":
	default:
		return nil, "", &FileError{Path: p, Err: fmt.Errorf("the frontmatter must be a mapping of keys to values")}
	}
	return m, strings.TrimSpace(body), nil
}

var topKeyRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(\S.*?)\s*$`)

// quoteBadValues rewrites top-level "key: value" lines whose value is not
// valid YAML on its own as single-quoted strings.
func quoteBadValues(front []byte) ([]byte, bool) {
	lines := strings.Split(string(front), "\n")
	changed := false
	for i, line := range lines {
		m := topKeyRE.FindStringSubmatch(strings.TrimSuffix(line, "\r"))
		if m == nil || strings.HasPrefix(m[2], "|") || strings.HasPrefix(m[2], ">") {
			continue
		}
		var v any
		if yaml.Unmarshal([]byte("v: "+m[2]), &v) == nil {
			continue
		}
		lines[i] = m[1] + ": '" + strings.ReplaceAll(m[2], "'", "''") + "'"
		changed = true
	}
	return []byte(strings.Join(lines, "\n")), changed
}

// field returns the value node of key in the mapping m.
func field(m *yaml.Node, key string) *yaml.Node {
	if m == nil {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// without returns a copy of the mapping m without the given keys.
func without(m *yaml.Node, keys ...string) *yaml.Node {
	if m == nil {
		return nil
	}
	c := *m
	c.Content = nil
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !slices.Contains(keys, m.Content[i].Value) {
			c.Content = append(c.Content, m.Content[i], m.Content[i+1])
		}
	}
	return &c
}

// scalar returns the string value of a scalar node, or "" for anything else.
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// list returns a comma- or space-separated scalar, or a sequence of
// scalars, as a list of trimmed non-empty strings. Commas inside
// parentheses do not split ("Agent(a, b)" stays whole).
func list(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	var raw []string
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			raw = append(raw, splitTopLevel(scalar(c))...)
		}
	case yaml.ScalarNode:
		raw = splitTopLevel(scalar(n))
	}
	var out []string
	for _, s := range raw {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// splitTopLevel splits s at commas and white space outside parentheses.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',', ' ', '\t', '\n':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// nodeJSON encodes a YAML node as JSON, keeping the order of mapping keys
// (permission rules depend on it).
func nodeJSON(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, n, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > 100 {
		return fmt.Errorf("the frontmatter nests too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return writeJSON(b, n.Content[0], depth+1)
	case yaml.AliasNode:
		return writeJSON(b, n.Alias, depth+1)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteByte(':')
			if err := writeJSON(b, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		if _, ok := v.(map[string]any); ok {
			v = n.Value
		}
		out, err := json.Marshal(v)
		if err != nil {
			out, _ = json.Marshal(n.Value)
		}
		b.Write(out)
	}
	return nil
}

// ancestors lists the directories from root down to dir, both included,
// when dir lies inside root; otherwise just dir.
func ancestors(dir, root string) []string {
	dir, root = filepath.Clean(dir), filepath.Clean(root)
	rel, err := filepath.Rel(root, dir)
	if root == "" || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{dir}
	}
	out := []string{root}
	if rel == "." {
		return out
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}
