package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// openTypes accept keys they do not declare (kept as options or extras).
var openTypes = map[reflect.Type]bool{
	reflect.TypeFor[Agent]():           true,
	reflect.TypeFor[ProviderOptions](): true,
	reflect.TypeFor[ProviderModel]():   true,
	reflect.TypeFor[Experimental]():    true,
}

var (
	typePermission  = reflect.TypeFor[Permission]()
	typePlugin      = reflect.TypeFor[Plugin]()
	typeAutoupdate  = reflect.TypeFor[Autoupdate]()
	typeTimeout     = reflect.TypeFor[Timeout]()
	typeInterleaved = reflect.TypeFor[Interleaved]()
	typeSnapshot    = reflect.TypeFor[Snapshot]()
	typeMCPOAuth    = reflect.TypeFor[MCPOAuth]()
	typeMCP         = reflect.TypeFor[MCP]()
	typeCommand     = reflect.TypeFor[Command]()
	typeConfig      = reflect.TypeFor[Config]()
	typeRaw         = reflect.TypeFor[json.RawMessage]()
	typeTheme       = reflect.TypeFor[Theme]()
)

// mcpKeys are the keys each kind of MCP entry may have.
var mcpKeys = map[string][]string{
	"local":  {"type", "command", "cwd", "environment", "enabled", "timeout"},
	"remote": {"type", "url", "headers", "oauth", "enabled", "timeout"},
	"":       {"enabled"},
}

// checker validates a parsed file against the config types, so that every
// problem is reported at its own line and column.
type checker struct {
	src *source
}

func (c *checker) fail(v *hujson.Value, path, format string, args ...any) *Error {
	return c.src.errAt(v.StartOffset, path, fmt.Sprintf(format, args...))
}

func kindName(k hujson.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "nothing"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// check validates v against type t. path names the value in messages.
func (c *checker) check(v *hujson.Value, t reflect.Type, path string) error {
	k := v.Value.Kind()
	if k == 'n' {
		return nil // null leaves the value unset
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := func(what string) error {
		return c.fail(v, path, "%s: want %s, got %s", path, what, kindName(k))
	}
	switch t {
	case typePermission:
		return c.checkPermission(v, path)
	case typePlugin:
		if k == '"' {
			return nil
		}
		arr, ok := v.Value.(*hujson.Array)
		if !ok || len(arr.Elements) == 0 || len(arr.Elements) > 2 || arr.Elements[0].Value.Kind() != '"' ||
			(len(arr.Elements) == 2 && arr.Elements[1].Value.Kind() != '{') {
			return want(`a package spec or [spec, {options}]`)
		}
		return nil
	case typeAutoupdate:
		if k == 't' || k == 'f' || (k == '"' && v.Value.(hujson.Literal).String() == "notify") {
			return nil
		}
		return want(`true, false or "notify"`)
	case typeTimeout:
		if k == 'f' {
			return nil
		}
		if k == '0' {
			return c.checkInt(v, path, true)
		}
		return want("milliseconds or false")
	case typeSnapshot:
		if k == 't' || k == 'f' {
			return nil
		}
		if k == '{' {
			return c.checkStruct(v, reflect.TypeFor[SnapshotLimits](), path)
		}
		return want(`true, false or {"max_size": bytes, "max_checkpoints": n, "retention_days": n}`)
	case typeInterleaved:
		if k == 't' || k == 'f' {
			return nil
		}
		if k == '{' {
			return c.checkStruct(v, reflect.TypeFor[struct {
				Field string `json:"field"`
			}](), path)
		}
		return want(`true or {"field": name}`)
	case typeMCPOAuth:
		if k == 'f' || k == 't' {
			return nil
		}
	case typeTheme:
		// Any name: the built-in themes and the theme files are the
		// interface's to know; it says at start when none has the name.
		if k == '"' && strings.TrimSpace(v.Value.(hujson.Literal).String()) != "" {
			return nil
		}
		return want("a theme's name (" + strings.Join(ThemeNames, ", ") + ", a built-in theme or a theme file)")
	case typeRaw:
		if path == "lsp" || path == "formatter" {
			if k != 't' && k != 'f' && k != '{' {
				return want("a boolean or an object")
			}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Interface:
		return nil
	case reflect.String:
		if k != '"' {
			return want("a string")
		}
	case reflect.Bool:
		if k != 't' && k != 'f' {
			return want("a boolean")
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if k != '0' {
			return want("an integer")
		}
		return c.checkInt(v, path, false)
	case reflect.Float64, reflect.Float32:
		if k != '0' {
			return want("a number")
		}
	case reflect.Slice:
		arr, ok := v.Value.(*hujson.Array)
		if !ok {
			return want("an array")
		}
		for i := range arr.Elements {
			if err := c.check(&arr.Elements[i], t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			return want("an object")
		}
		for i := range obj.Members {
			m := &obj.Members[i]
			if err := c.check(&m.Value, t.Elem(), join(path, m.Name.Value.(hujson.Literal).String())); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if k != '{' {
			return want("an object")
		}
		return c.checkStruct(v, t, path)
	}
	return nil
}

func (c *checker) checkInt(v *hujson.Value, path string, nonNegative bool) error {
	f := v.Value.(hujson.Literal).Float()
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return c.fail(v, path, "%s: want an integer, got %s", path, v.Value.(hujson.Literal))
	}
	if nonNegative && f < 0 {
		return c.fail(v, path, "%s: must not be negative", path)
	}
	return nil
}

// checkStruct validates the members of object v against struct type t.
func (c *checker) checkStruct(v *hujson.Value, t reflect.Type, path string) error {
	obj := v.Value.(*hujson.Object)
	fields := jsonFields(t)
	allowed := func(string) bool { return true }
	if t == typeMCP {
		kind := ""
		for i := range obj.Members {
			m := &obj.Members[i]
			if m.Name.Value.(hujson.Literal).String() != "type" {
				continue
			}
			lit, ok := m.Value.Value.(hujson.Literal)
			if ok && lit.Kind() == '"' {
				kind = lit.String()
			}
			if _, known := mcpKeys[kind]; !ok || !known || kind == "" {
				return c.fail(&m.Value, join(path, "type"), `%s: want "local" or "remote"`, join(path, "type"))
			}
		}
		if kind == "" {
			for i := range obj.Members {
				if obj.Members[i].Name.Value.(hujson.Literal).String() != "enabled" {
					return c.fail(v, path, `%s: want "type": "local" or "remote" (only "enabled" may stand alone)`, path)
				}
			}
		}
		allowed = func(key string) bool { return slices.Contains(mcpKeys[kind], key) }
		var missing string
		switch kind {
		case "local":
			missing = "command"
		case "remote":
			missing = "url"
		}
		if missing != "" && !hasNonEmpty(obj, missing) {
			return c.fail(v, path, "%s: a %s MCP server needs %q", path, kind, missing)
		}
	}
	if t == typeCommand && !hasMember(obj, "template") {
		return c.fail(v, path, `%s: a command needs "template"`, path)
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		key := m.Name.Value.(hujson.Literal).String()
		idx, known := fields[key]
		if !known || !allowed(key) {
			if openTypes[t] {
				continue
			}
			var candidates []string
			for name := range fields {
				if allowed(name) {
					candidates = append(candidates, name)
				}
			}
			where := "config"
			if path != "" {
				where = path
			}
			e := c.src.errAt(m.Name.StartOffset, join(path, key), fmt.Sprintf("unknown key %q in %s", key, where))
			e.Suggestion = closest(key, candidates)
			return e
		}
		if err := c.check(&m.Value, t.Field(idx).Type, join(path, key)); err != nil {
			return err
		}
	}
	return nil
}

func hasMember(obj *hujson.Object, name string) bool {
	for i := range obj.Members {
		m := &obj.Members[i]
		if m.Name.Value.(hujson.Literal).String() == name && m.Value.Value.Kind() != 'n' {
			return true
		}
	}
	return false
}

// hasNonEmpty reports whether obj has member name with a value other than
// null, "" and [].
func hasNonEmpty(obj *hujson.Object, name string) bool {
	for i := range obj.Members {
		m := &obj.Members[i]
		if m.Name.Value.(hujson.Literal).String() != name {
			continue
		}
		switch v := m.Value.Value.(type) {
		case hujson.Literal:
			return v.Kind() != 'n' && string(v) != `""`
		case *hujson.Array:
			return len(v.Elements) > 0
		default:
			return true
		}
	}
	return false
}

func (c *checker) checkPermission(v *hujson.Value, path string) error {
	action := func(v *hujson.Value, path string) error {
		if v.Value.Kind() == '"' && validAction(v.Value.(hujson.Literal).String()) {
			return nil
		}
		got := kindName(v.Value.Kind())
		if v.Value.Kind() == '"' {
			got = fmt.Sprintf("%q", v.Value.(hujson.Literal).String())
		}
		return c.fail(v, path, "%s: want allow, ask or deny, got %s", path, got)
	}
	switch v.Value.Kind() {
	case '"':
		return action(v, path)
	case '[':
		arr := v.Value.(*hujson.Array)
		for i := range arr.Elements {
			el := &arr.Elements[i]
			if el.Value.Kind() != '{' {
				return c.fail(el, path, "%s[%d]: want a rule object", path, i)
			}
			if err := c.checkStruct(el, reflect.TypeFor[PermissionRule](), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case '{':
	default:
		return c.fail(v, path, "%s: want allow, ask, deny or an object, got %s", path, kindName(v.Value.Kind()))
	}
	for _, m := range v.Value.(*hujson.Object).Members {
		name := join(path, m.Name.Value.(hujson.Literal).String())
		switch m.Value.Value.Kind() {
		case 'n':
		case '"':
			if err := action(&m.Value, name); err != nil {
				return err
			}
		case '{':
			for _, p := range m.Value.Value.(*hujson.Object).Members {
				if err := action(&p.Value, fmt.Sprintf("%s[%q]", name, p.Name.Value.(hujson.Literal).String())); err != nil {
					return err
				}
			}
		default:
			return c.fail(&m.Value, name, "%s: want allow, ask, deny or an object of patterns, got %s", name, kindName(m.Value.Value.Kind()))
		}
	}
	return nil
}

// closest returns the candidate nearest to key by edit distance, or "" when
// none is near enough to be a plausible typo.
func closest(key string, candidates []string) string {
	slices.Sort(candidates)
	best, bestD := "", math.MaxInt
	lk := strings.ToLower(key)
	for _, c := range candidates {
		d := editDistance(lk, strings.ToLower(c))
		// On a tie prefer the candidate of the same length: a swap of two
		// letters is a likelier typo than a dropped or added one.
		if d < bestD || (d == bestD && absInt(len(c)-len(key)) < absInt(len(best)-len(key))) {
			best, bestD = c, d
		}
	}
	if bestD > max(2, len(key)/3) {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and adjacent transpositions.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
