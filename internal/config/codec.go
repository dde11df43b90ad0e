package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// validAction reports whether a is a permission action.
func validAction(a string) bool { return a == "allow" || a == "ask" || a == "deny" }

// UnmarshalJSON reads the permission config in file order: an action string,
// an object of permission names to an action or to an object of patterns to
// actions, or the array of rules MarshalJSON writes when the object form
// cannot express the list.
func (p *Permission) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	var rules Permission
	switch t := tok.(type) {
	case nil:
		*p = nil
		return nil
	case string:
		if !validAction(t) {
			return fmt.Errorf("permission: %q is not an action (want allow, ask or deny)", t)
		}
		*p = Permission{{Permission: "*", Pattern: "*", Action: t}}
		return nil
	case json.Delim:
		switch t {
		case '[':
			var list []PermissionRule
			if err := json.Unmarshal(data, &list); err != nil {
				return err
			}
			for _, r := range list {
				if !validAction(r.Action) {
					return fmt.Errorf("permission %q: %q is not an action (want allow, ask or deny)", r.Permission, r.Action)
				}
			}
			*p = list
			return nil
		case '{':
		default:
			return fmt.Errorf("permission: unexpected %v", t)
		}
	default:
		return fmt.Errorf("permission: want an action or an object, got %v", tok)
	}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return err
		}
		name := keyTok.(string)
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case nil:
			// An explicit null sets nothing.
		case string:
			if !validAction(v) {
				return fmt.Errorf("permission %q: %q is not an action (want allow, ask or deny)", name, v)
			}
			rules = append(rules, PermissionRule{Permission: name, Pattern: "*", Action: v})
		case json.Delim:
			if v != '{' {
				return fmt.Errorf("permission %q: want an action or an object of patterns", name)
			}
			for dec.More() {
				patTok, err := dec.Token()
				if err != nil {
					return err
				}
				pattern := patTok.(string)
				actTok, err := dec.Token()
				if err != nil {
					return err
				}
				action, ok := actTok.(string)
				if !ok || !validAction(action) {
					return fmt.Errorf("permission %q pattern %q: %v is not an action (want allow, ask or deny)", name, pattern, actTok)
				}
				rules = append(rules, PermissionRule{Permission: name, Pattern: pattern, Action: action})
			}
			if _, err := dec.Token(); err != nil { // closing }
				return err
			}
		default:
			return fmt.Errorf("permission %q: want an action or an object of patterns, got %v", name, tok)
		}
	}
	*p = rules
	return nil
}

// MarshalJSON writes the object form when it expresses the rules exactly
// (each permission's rules adjacent, each pattern once), otherwise the list
// of rules.
func (p Permission) MarshalJSON() ([]byte, error) {
	if p == nil {
		return []byte("null"), nil
	}
	type group struct {
		name  string
		rules []PermissionRule
	}
	var groups []group
	seen := map[string]bool{}
	objectForm := true
	for _, r := range p {
		if len(groups) > 0 && groups[len(groups)-1].name == r.Permission {
			g := &groups[len(groups)-1]
			for _, o := range g.rules {
				if o.Pattern == r.Pattern {
					objectForm = false
				}
			}
			g.rules = append(g.rules, r)
			continue
		}
		if seen[r.Permission] {
			objectForm = false
		}
		seen[r.Permission] = true
		groups = append(groups, group{name: r.Permission, rules: []PermissionRule{r}})
	}
	if !objectForm {
		return json.Marshal([]PermissionRule(p))
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, g := range groups {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, g.name)
		b.WriteByte(':')
		if len(g.rules) == 1 && g.rules[0].Pattern == "*" {
			writeJSONString(&b, g.rules[0].Action)
			continue
		}
		b.WriteByte('{')
		for j, r := range g.rules {
			if j > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b, r.Pattern)
			b.WriteByte(':')
			writeJSONString(&b, r.Action)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}

// UnmarshalJSON reads "spec" or ["spec", {options}].
func (p *Plugin) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*p = Plugin{Spec: s}
		return nil
	}
	var tuple []json.RawMessage
	if err := json.Unmarshal(data, &tuple); err != nil || len(tuple) == 0 || len(tuple) > 2 {
		return errors.New("plugin: want a package spec or [spec, options]")
	}
	if err := json.Unmarshal(tuple[0], &s); err != nil {
		return errors.New("plugin: the first element must be the package spec")
	}
	out := Plugin{Spec: s}
	if len(tuple) == 2 {
		if err := json.Unmarshal(tuple[1], &out.Options); err != nil {
			return errors.New("plugin: the second element must be an options object")
		}
	}
	*p = out
	return nil
}

// MarshalJSON writes "spec" or ["spec", {options}].
func (p Plugin) MarshalJSON() ([]byte, error) {
	if p.Options == nil {
		return json.Marshal(p.Spec)
	}
	return json.Marshal([]any{p.Spec, p.Options})
}

// UnmarshalJSON reads true, false or "notify".
func (a *Autoupdate) UnmarshalJSON(data []byte) error {
	switch s := string(bytes.TrimSpace(data)); s {
	case "true", "false":
		*a = Autoupdate(s)
	case `"notify"`:
		*a = "notify"
	case "null":
		*a = ""
	default:
		return errors.New(`autoupdate: want true, false or "notify"`)
	}
	return nil
}

// MarshalJSON writes true, false or "notify".
func (a Autoupdate) MarshalJSON() ([]byte, error) {
	switch a {
	case "true", "false":
		return []byte(a), nil
	case "":
		return []byte("null"), nil
	}
	return json.Marshal(string(a))
}

// UnmarshalJSON reads a number of milliseconds or false.
func (t *Timeout) UnmarshalJSON(data []byte) error {
	s := string(bytes.TrimSpace(data))
	if s == "false" {
		*t = Timeout{Disabled: true}
		return nil
	}
	var n int
	if err := json.Unmarshal(data, &n); err != nil || n < 0 {
		return errors.New("timeout: want milliseconds or false")
	}
	*t = Timeout{Millis: n}
	return nil
}

// MarshalJSON writes the milliseconds or false.
func (t Timeout) MarshalJSON() ([]byte, error) {
	if t.Disabled {
		return []byte("false"), nil
	}
	return json.Marshal(t.Millis)
}

// UnmarshalJSON reads true, false or the store's bounds.
func (s *Snapshot) UnmarshalJSON(data []byte) error {
	var b bool
	if err := json.Unmarshal(data, &b); err == nil {
		*s = Snapshot{Disabled: !b}
		return nil
	}
	var l SnapshotLimits
	if err := json.Unmarshal(data, &l); err != nil {
		return errors.New(`snapshot: want true, false or {"max_size": bytes, "max_checkpoints": n, "retention_days": n}`)
	}
	*s = Snapshot{Limits: l}
	return nil
}

// MarshalJSON writes false, true or the bounds.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	if s.Disabled || s.Limits == (SnapshotLimits{}) {
		return json.Marshal(!s.Disabled)
	}
	return json.Marshal(s.Limits)
}

// UnmarshalJSON reads true, false or {"field": name}.
func (i *Interleaved) UnmarshalJSON(data []byte) error {
	var b bool
	if err := json.Unmarshal(data, &b); err == nil {
		*i = Interleaved{Enabled: b}
		return nil
	}
	var obj struct {
		Field string `json:"field"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return errors.New(`interleaved: want true or {"field": name}`)
	}
	*i = Interleaved{Enabled: true, Field: obj.Field}
	return nil
}

// MarshalJSON writes true, false or {"field": name}.
func (i Interleaved) MarshalJSON() ([]byte, error) {
	if i.Field == "" {
		return json.Marshal(i.Enabled)
	}
	return json.Marshal(map[string]string{"field": i.Field})
}

// UnmarshalJSON reads false (OAuth disabled) or the OAuth settings.
func (o *MCPOAuth) UnmarshalJSON(data []byte) error {
	if s := string(bytes.TrimSpace(data)); s == "false" {
		*o = MCPOAuth{Disabled: true}
		return nil
	} else if s == "true" {
		*o = MCPOAuth{}
		return nil
	}
	type plain MCPOAuth
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*o = MCPOAuth(v)
	return nil
}

// MarshalJSON writes false when OAuth is disabled, the settings otherwise.
func (o MCPOAuth) MarshalJSON() ([]byte, error) {
	if o.Disabled {
		return []byte("false"), nil
	}
	type plain MCPOAuth
	return json.Marshal(plain(o))
}

// UnmarshalJSON reads the agent's fields and merges any other key into
// Options.
func (a *Agent) UnmarshalJSON(data []byte) error {
	type plain Agent
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	extra, err := unknownKeys(data, reflect.TypeFor[Agent]())
	if err != nil {
		return err
	}
	if len(extra) > 0 {
		if v.Options == nil {
			v.Options = map[string]any{}
		}
		for k, val := range extra {
			if _, set := v.Options[k]; !set {
				v.Options[k] = val
			}
		}
	}
	*a = Agent(v)
	return nil
}

// UnmarshalJSON reads the known options and keeps the others in Extra.
func (o *ProviderOptions) UnmarshalJSON(data []byte) error {
	type plain ProviderOptions
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	extra, err := unknownKeys(data, reflect.TypeFor[ProviderOptions]())
	if err != nil {
		return err
	}
	v.Extra = extra
	*o = ProviderOptions(v)
	return nil
}

// MarshalJSON writes the known options followed by Extra.
func (o ProviderOptions) MarshalJSON() ([]byte, error) {
	type plain ProviderOptions
	return marshalWithExtra(plain(o), o.Extra)
}

// UnmarshalJSON reads the known fields and keeps the others in Extra.
func (m *ProviderModel) UnmarshalJSON(data []byte) error {
	type plain ProviderModel
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	extra, err := unknownKeys(data, reflect.TypeFor[ProviderModel]())
	if err != nil {
		return err
	}
	v.Extra = extra
	*m = ProviderModel(v)
	return nil
}

// MarshalJSON writes the known fields followed by Extra.
func (m ProviderModel) MarshalJSON() ([]byte, error) {
	type plain ProviderModel
	return marshalWithExtra(plain(m), m.Extra)
}

// UnmarshalJSON reads the known settings and keeps the others in Extra.
func (e *Experimental) UnmarshalJSON(data []byte) error {
	type plain Experimental
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	extra, err := unknownKeys(data, reflect.TypeFor[Experimental]())
	if err != nil {
		return err
	}
	v.Extra = extra
	*e = Experimental(v)
	return nil
}

// MarshalJSON writes the known settings followed by Extra.
func (e Experimental) MarshalJSON() ([]byte, error) {
	type plain Experimental
	return marshalWithExtra(plain(e), e.Extra)
}

// unknownKeys returns the members of the JSON object data that are not
// fields of the struct type t, or nil when there are none.
func unknownKeys(data []byte, t reflect.Type) (map[string]any, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	known := jsonFields(t)
	var extra map[string]any
	for k, raw := range all {
		if _, ok := known[k]; ok {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		if extra == nil {
			extra = map[string]any{}
		}
		extra[k] = v
	}
	return extra, nil
}

// jsonFields maps the JSON names of struct type t to its field indexes.
func jsonFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = i
	}
	return out
}

// marshalWithExtra marshals v (a struct) and appends the members of extra
// that v does not already have.
func marshalWithExtra(v any, extra map[string]any) ([]byte, error) {
	base, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return base, err
	}
	known := jsonFields(reflect.TypeOf(v))
	rest := make(map[string]any, len(extra))
	for k, val := range extra {
		if _, ok := known[k]; !ok {
			rest[k] = val
		}
	}
	if len(rest) == 0 {
		return base, nil
	}
	more, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	if string(base) == "{}" {
		return more, nil
	}
	out := append(base[:len(base)-1:len(base)-1], ',')
	return append(out, more[1:]...), nil
}
