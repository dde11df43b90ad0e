package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Def describes a tool whose arguments decode into the Go struct P. The JSON
// Schema the model sees is derived from P: exported fields by their json
// names, fields tagged omitempty optional, `jsonschema:"..."` tags as
// property descriptions.
type Def[P any] struct {
	ID          string
	Description string
	// Schema, when set, refines the derived schema (enums, bounds) before
	// it is frozen.
	Schema func(s *jsonschema.Schema)
	// Run does the work with decoded, validated arguments.
	Run func(ctx context.Context, call *Call, p P) (*Result, error)
	// Truncate, when set, cuts every output to its limits and saves the full
	// text. Tail keeps the end of the output instead of its start.
	Truncate *Truncator
	Tail     bool
	// Traits describe the tool (see Describer); Touches, when set,
	// returns the files a call with arguments p reads or changes, and
	// Summary says in a few words what it works on.
	Traits  Traits
	Touches func(p P, dir string) []Touch
	Summary func(p P, dir string) string
}

// InvalidArgumentsError reports arguments that do not satisfy a tool's
// schema; its text asks the model to rewrite them.
type InvalidArgumentsError struct {
	Tool   string
	Detail string
}

func (e *InvalidArgumentsError) Error() string {
	return fmt.Sprintf("The %s tool was called with invalid arguments: %s. Please rewrite the input so it satisfies the expected schema.", e.Tool, e.Detail)
}

type defined[P any] struct {
	def      Def[P]
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	raw      json.RawMessage
}

// New builds a Tool from def. It fails when P cannot be described by a JSON
// Schema.
func New[P any](def Def[P]) (Tool, error) {
	if def.ID == "" || def.Run == nil {
		return nil, fmt.Errorf("tool definition needs an id and a run function")
	}
	s, err := jsonschema.For[P](nil)
	if err != nil {
		return nil, fmt.Errorf("deriving the schema of tool %s: %w", def.ID, err)
	}
	notNull(s)
	if def.Schema != nil {
		def.Schema(s)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolving the schema of tool %s: %w", def.ID, err)
	}
	sent := s.CloneSchemas()
	openObjects(sent)
	raw, err := json.Marshal(sent)
	if err != nil {
		return nil, fmt.Errorf("encoding the schema of tool %s: %w", def.ID, err)
	}
	return &defined[P]{def: def, schema: s, resolved: resolved, raw: raw}, nil
}

// Must is New for definitions known to be valid; it panics otherwise.
func Must[P any](def Def[P]) Tool {
	t, err := New(def)
	if err != nil {
		panic(err)
	}
	return t
}

func (d *defined[P]) ID() string              { return d.def.ID }
func (d *defined[P]) Traits() Traits          { return d.def.Traits }
func (d *defined[P]) Description() string     { return d.def.Description }
func (d *defined[P]) Schema() json.RawMessage { return d.raw }

// Touches decodes the arguments and returns the files they name; nil when
// they do not decode.
func (d *defined[P]) Touches(input json.RawMessage, dir string) []Touch {
	if d.def.Touches == nil {
		return nil
	}
	p, err := d.decode(input)
	if err != nil {
		return nil
	}
	return d.def.Touches(p, dir)
}

// Summary decodes the arguments and says what they work on; "" when they
// do not decode.
func (d *defined[P]) Summary(input json.RawMessage, dir string) string {
	if d.def.Summary == nil {
		return ""
	}
	p, err := d.decode(input)
	if err != nil {
		return ""
	}
	return d.def.Summary(p, dir)
}

// Run validates and decodes the call's arguments, runs the tool and
// truncates its output.
func (d *defined[P]) Run(ctx context.Context, call *Call) (*Result, error) {
	p, err := d.decode(call.Input)
	if err != nil {
		return nil, err
	}
	res, err := d.def.Run(ctx, call, p)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &Result{}
	}
	if d.def.Truncate != nil {
		d.def.Truncate.Apply(res, call.CanDelegate, d.def.Tail)
	}
	return res, nil
}

// decode turns raw arguments into P: lenient about unknown properties and
// numbers or booleans sent as strings, strict about everything else.
func (d *defined[P]) decode(input json.RawMessage) (P, error) {
	var p P
	invalid := func(detail string) (P, error) {
		return p, &InvalidArgumentsError{Tool: d.def.ID, Detail: detail}
	}
	input = bytes.TrimSpace(input)
	if len(input) == 0 || string(input) == "null" {
		input = []byte("{}")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return invalid("the arguments are not valid JSON (" + err.Error() + ")")
	}
	v = conform(v, d.schema)
	if err := d.resolved.Validate(plain(v)); err != nil {
		return invalid(strings.TrimSuffix(err.Error(), "."))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return invalid(err.Error())
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return invalid(err.Error())
	}
	return p, nil
}

// conform drops object properties the schema does not know and converts
// strings holding numbers or booleans where the schema wants those, as
// models often send them.
func conform(v any, s *jsonschema.Schema) any {
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if len(s.Properties) == 0 {
			return x
		}
		for k, val := range x {
			ps, ok := s.Properties[k]
			if !ok {
				delete(x, k)
				continue
			}
			x[k] = conform(val, ps)
		}
		return x
	case []any:
		for i := range x {
			x[i] = conform(x[i], s.Items)
		}
		return x
	case string:
		switch schemaType(s) {
		case "integer", "number":
			if _, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return json.Number(strings.TrimSpace(x))
			}
		case "boolean":
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
				return b
			}
		}
	}
	return v
}

// notNull makes slice and map properties plain arrays and objects: the
// derived schema allows null for them (Go's nil), which models need not
// see.
func notNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		notNull(p)
	}
	notNull(s.Items)
}

// openObjects drops the "additionalProperties": false that every derived
// object carries from the schema the model is sent. Unknown arguments are
// dropped before validation anyway, so it only cost bytes on every
// request.
func openObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		openObjects(p)
	}
	openObjects(s.Items)
}

func schemaType(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// plain replaces json.Number by float64 or int64, the values the validator
// understands.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = plain(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = plain(x[i])
		}
		return out
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// prop returns the property named name of an object schema, for Def.Schema
// functions; it panics when there is none, a programming error.
func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic("tool schema has no property " + name)
	}
	return p
}

func ptr[T any](v T) *T { return &v }
