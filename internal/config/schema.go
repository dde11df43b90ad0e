package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaURL is the JSON Schema dialect of the generated schema.
const SchemaURL = "https://json-schema.org/draft/2020-12/schema"

// Schema returns the JSON Schema of a config file, generated from the types,
// for editors to validate and complete config files.
func Schema() (*jsonschema.Schema, error) {
	action := &jsonschema.Schema{Type: "string", Enum: []any{"allow", "ask", "deny"}}
	any_ := func() *jsonschema.Schema { return &jsonschema.Schema{} }
	constant := func(v any) *jsonschema.Schema { return &jsonschema.Schema{Const: &v} }
	one, two := 1, 2
	zero := 0.0

	rule, err := jsonschema.For[PermissionRule](nil)
	if err != nil {
		return nil, err
	}
	rule.Properties["action"] = action
	limits, err := jsonschema.For[SnapshotLimits](nil)
	if err != nil {
		return nil, err
	}
	themes := make([]any, len(ThemeNames))
	for i, n := range ThemeNames {
		themes[i] = n
	}
	// Any theme's name; the fixed ones are offered as examples.
	types := map[reflect.Type]*jsonschema.Schema{
		typeRaw:   any_(),
		typeTheme: {Type: "string", MinLength: jsonschema.Ptr(1), Examples: themes},
		typePermission: union("an action for everything, or permission names mapped to an action or to patterns mapped to actions; later rules win",
			action,
			&jsonschema.Schema{Type: "object", AdditionalProperties: union("",
				action,
				&jsonschema.Schema{Type: "object", AdditionalProperties: action},
			)},
			&jsonschema.Schema{Type: "array", Items: rule},
		),
		typePlugin: union("a package spec, or [spec, options]",
			&jsonschema.Schema{Type: "string"},
			&jsonschema.Schema{Type: "array", PrefixItems: []*jsonschema.Schema{{Type: "string"}, {Type: "object"}}, MinItems: &one, MaxItems: &two},
		),
		typeAutoupdate: union("", &jsonschema.Schema{Type: "boolean"}, constant("notify")),
		typeTimeout:    union("milliseconds, or false for no timeout", &jsonschema.Schema{Type: "integer", Minimum: &zero}, constant(false)),
		typeSnapshot:   union("true (the default), false, or the store's bounds (snapshots on)", &jsonschema.Schema{Type: "boolean"}, limits),
		typeInterleaved: union(`true, or {"field": name} naming the option that carries reasoning back`,
			&jsonschema.Schema{Type: "boolean"},
			&jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"field": {Type: "string"}}, AdditionalProperties: &jsonschema.Schema{Not: any_()}},
		),
	}
	// Cost refers to itself for prices above 200K tokens of context.
	type flatCost struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cache_read,omitempty"`
		CacheWrite float64 `json:"cache_write,omitempty"`
	}
	cost, err := jsonschema.For[flatCost](nil)
	if err != nil {
		return nil, err
	}
	cost.Properties["context_over_200k"] = cost.CloneSchemas()
	cost.PropertyOrder = append(cost.PropertyOrder, "context_over_200k")
	types[reflect.TypeFor[Cost]()] = cost

	type oauth MCPOAuth // the same fields without the custom codec
	oauthSchema, err := jsonschema.For[oauth](nil)
	if err != nil {
		return nil, err
	}
	types[typeMCPOAuth] = union("OAuth settings, or false to never use OAuth", constant(false), oauthSchema)

	// Types that accept keys they do not declare, in dependency order.
	for _, t := range []reflect.Type{reflect.TypeFor[ProviderOptions](), reflect.TypeFor[ProviderModel](), reflect.TypeFor[Agent](), reflect.TypeFor[Experimental]()} {
		s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: types})
		if err != nil {
			return nil, fmt.Errorf("schema for %v: %w", t, err)
		}
		s.AdditionalProperties = any_()
		types[t] = s
	}

	mcp, err := jsonschema.ForType(typeMCP, &jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		return nil, err
	}
	types[typeMCP] = mcpSchema(mcp)

	s, err := jsonschema.For[Config](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		return nil, err
	}
	s.Schema = SchemaURL
	s.Title = "codeloop config"
	s.Description = "Configuration of codeloop (opencode.json, codeloop.json and their .jsonc forms)."
	for _, key := range []string{"lsp", "formatter"} {
		p := s.Properties[key]
		p.AnyOf = []*jsonschema.Schema{{Type: "boolean"}, {Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "object"}}}
	}
	return s, nil
}

// mcpSchema splits the MCP entry schema into its three shapes: a local
// server, a remote server, and an entry that only switches a server on or off.
func mcpSchema(all *jsonschema.Schema) *jsonschema.Schema {
	shape := func(kind string, required ...string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, Required: required,
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
		for _, key := range mcpKeys[kind] {
			s.Properties[key] = all.Properties[key].CloneSchemas()
			if i := slices.Index(all.PropertyOrder, key); i >= 0 {
				s.PropertyOrder = append(s.PropertyOrder, key)
			}
		}
		if kind != "" {
			var v any = kind
			s.Properties["type"] = &jsonschema.Schema{Const: &v}
		}
		return s
	}
	return union("a local server, a remote server, or only enabled to switch a server defined elsewhere",
		shape("local", "type", "command"),
		shape("remote", "type", "url"),
		shape("", "enabled"),
	)
}

// union is a schema matching any of alts, or null. It lists the JSON types
// of the alternatives as well, since the generator narrows a schema without
// types to null where a Go pointer refers to it.
func union(desc string, alts ...*jsonschema.Schema) *jsonschema.Schema {
	types := []string{"null"}
	add := func(t string) {
		if t != "" && !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	for _, a := range alts {
		add(a.Type)
		for _, t := range a.Types {
			add(t)
		}
		if a.Const != nil {
			switch (*a.Const).(type) {
			case bool:
				add("boolean")
			case string:
				add("string")
			}
		}
		for _, e := range a.Enum {
			if _, ok := e.(string); ok {
				add("string")
			}
		}
	}
	return &jsonschema.Schema{Description: desc, Types: types, AnyOf: alts}
}

// SchemaJSON returns the schema as indented JSON.
func SchemaJSON() ([]byte, error) {
	s, err := Schema()
	if err != nil {
		return nil, err
	}
	// Put the dialect and title first, where a reader looks.
	head, err := json.Marshal(map[string]string{"$schema": s.Schema, "title": s.Title, "description": s.Description})
	if err != nil {
		return nil, err
	}
	s.Schema, s.Title, s.Description = "", "", ""
	body, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	flat := append(append(head[:len(head)-1:len(head)-1], ','), body[1:]...)
	var out bytes.Buffer
	if err := json.Indent(&out, flat, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
