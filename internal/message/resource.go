package message

import (
	"encoding/json"
	"strings"
)

// SourceResource is the source type of a file part that attaches an MCP
// resource: {"type": "resource", "clientName": server, "uri": uri, "text":
// {"value", "start", "end"}}, OpenCode's shape.
const SourceResource = "resource"

// ResourceSource is the source of a file part attaching the resource uri of
// the MCP server, mentioned as text at the byte offsets start to end of the
// message's text.
func ResourceSource(server, uri, text string, start, end int) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type": SourceResource, "clientName": server, "uri": uri,
		"text": map[string]any{"value": text, "start": start, "end": end},
	})
	return b
}

// Resource reports the MCP server and resource URI the part attaches, when
// its source says it is an MCP resource.
func (p *FilePart) Resource() (server, uri string, ok bool) {
	if len(p.Source) == 0 {
		return "", "", false
	}
	var src struct {
		Type       string `json:"type"`
		ClientName string `json:"clientName"`
		URI        string `json:"uri"`
	}
	if json.Unmarshal(p.Source, &src) != nil || src.Type != SourceResource || src.ClientName == "" {
		return "", "", false
	}
	if src.URI == "" {
		src.URI = p.URL
	}
	return src.ClientName, src.URI, src.URI != ""
}

// resourceReference reports whether p only names an MCP resource: its
// contents went into the message as other parts when it was stored, and
// its URL is the resource's, which no model can fetch.
func resourceReference(p *FilePart) bool {
	if strings.HasPrefix(p.URL, "data:") {
		return false
	}
	_, _, ok := p.Resource()
	return ok
}
