package tool

import (
	"encoding/json"
	"slices"
	"strings"
)

// Registry holds the tools of a project by id.
type Registry struct {
	tools []Tool
	byID  map[string]Tool
}

// NewRegistry returns a registry of tools; a later tool replaces an earlier
// one with the same id.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{byID: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		if _, dup := r.byID[t.ID()]; dup {
			r.tools = slices.DeleteFunc(r.tools, func(o Tool) bool { return o.ID() == t.ID() })
		}
		r.byID[t.ID()] = t
		r.tools = append(r.tools, t)
	}
	return r
}

// Tools returns every tool in registration order.
func (r *Registry) Tools() []Tool { return slices.Clone(r.tools) }

// InvalidID is the id of the tool unrepairable calls are routed to.
const InvalidID = "invalid"

// Lookup finds the tool the model meant by name: the tool with that id, or
// the only one whose id equals it ignoring case. Otherwise it returns the
// invalid tool (nil when the registry has none) and false; the caller then
// runs it with InvalidInput.
func (r *Registry) Lookup(name string) (Tool, bool) {
	if t, ok := r.byID[name]; ok {
		return t, true
	}
	var found Tool
	for _, t := range r.tools {
		if strings.EqualFold(t.ID(), name) {
			if found != nil {
				found = nil
				break
			}
			found = t
		}
	}
	if found != nil {
		return found, true
	}
	return r.byID[InvalidID], false
}

// InvalidInput is the input of the invalid tool for a call of tool that
// could not be run because of problem.
func InvalidInput(tool, problem string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"tool": tool, "error": problem})
	return b
}

// Filter says which tools an agent may see.
type Filter struct {
	// Model is the model id; it chooses between apply_patch and edit/write.
	Model string
	// Disabled reports whether the agent's permissions (or the user's
	// message) hide the tool with this id; see PermissionOf.
	Disabled func(toolID string) bool
}

// For lists the tools an agent may see, sorted by id. GPT models (except
// gpt-4 and the open-weight gpt-oss) get apply_patch instead of edit and
// write; other models never see apply_patch. invalid is never hidden.
func (r *Registry) For(f Filter) []Tool {
	patch := UsesApplyPatch(f.Model)
	var out []Tool
	for _, t := range r.tools {
		id := t.ID()
		switch {
		case id == InvalidID:
		case id == "apply_patch" && !patch:
			continue
		case (id == "edit" || id == "write") && patch:
			continue
		case f.Disabled != nil && f.Disabled(id):
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.ID(), b.ID()) })
	return out
}

// UsesApplyPatch reports whether the model with this id edits files with
// apply_patch rather than edit and write.
func UsesApplyPatch(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "gpt-") && !strings.Contains(m, "oss") && !strings.Contains(m, "gpt-4")
}

// PermissionOf is the permission name that governs the tool with this id:
// the file-changing tools share "edit", every other tool is its own.
func PermissionOf(toolID string) string {
	switch toolID {
	case "edit", "write", "apply_patch", "multiedit", "patch":
		return "edit"
	}
	return toolID
}
