package agent

import (
	"encoding/json"

	"github.com/codeloop/codeloop/internal/message"
)

// Parts returns the parts of the user message the expansion makes, without
// ids: the subtask part alone for a subtask, otherwise the text, a file
// part per file and resource reference and an agent part per agent
// mention. The session resolves file parts (reading the files and
// resources) and follows agent parts with MentionInstruction, as for any
// prompt.
func (e *Expansion) Parts() []message.Part {
	if s := e.Subtask; s != nil {
		p := &message.SubtaskPart{Prompt: s.Prompt, Description: s.Description, Agent: s.Agent, Command: s.Command}
		if prov, model, ok := SplitModel(s.Model); ok {
			p.Model = &message.ModelRef{ProviderID: prov, ModelID: model}
		}
		return []message.Part{p}
	}
	out := []message.Part{&message.TextPart{Text: e.Text}}
	out = append(out, RefParts(e.Files, e.Agents, e.Resources)...)
	return out
}

// RefParts turns resolved @ mentions into file and agent parts, each
// carrying where in the text it was mentioned. A resource becomes a
// text/plain file part whose URL is the resource's URI and whose source
// names the server (message.ResourceSource); the session reads it when the
// message is stored.
func RefParts(files []FileRef, agents []AgentRef, resources []ResourceRef) []message.Part {
	var out []message.Part
	for _, f := range files {
		src, _ := json.Marshal(map[string]any{
			"type": "file", "path": f.Name,
			"text": map[string]any{"value": "@" + f.Name, "start": f.Start, "end": f.End},
		})
		out = append(out, &message.FilePart{Mime: f.Mime, Filename: f.Name, URL: f.URL, Source: src})
	}
	for _, r := range resources {
		out = append(out, &message.FilePart{Mime: "text/plain", Filename: r.URI, URL: r.URI,
			Source: message.ResourceSource(r.Server, r.URI, "@"+r.Name, r.Start, r.End)})
	}
	for _, a := range agents {
		out = append(out, &message.AgentPart{Name: a.Name,
			Source: &message.AgentSource{Value: "@" + a.Name, Start: a.Start, End: a.End}})
	}
	return out
}
