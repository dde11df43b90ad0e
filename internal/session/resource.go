package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/tool"
)

// maxResourceMedia is the largest binary resource content attached as a
// file; larger ones are described instead.
const maxResourceMedia = 10 << 20

// resourceMedia are the media types of binary resource contents that models
// accept as files.
var resourceMedia = []string{"application/pdf", "image/gif", "image/jpeg", "image/png", "image/webp"}

// errNoResources is the failure of an attached resource when the engine has
// no way to read resources.
var errNoResources = errors.New("MCP resources cannot be read here")

// attachResource reads the MCP resource p attaches, as OpenCode does: a
// synthetic note naming it, its text as synthetic text, each binary
// content as a file part (PDF and GIF, JPEG, PNG or WebP images up to
// 10 MB) or else a note describing it, then p itself, which is never sent
// to the model. A resource that cannot be read leaves a note saying why.
func (e *Engine) attachResource(ctx context.Context, p *message.FilePart, server, uri string) []message.Part {
	name := uri
	if p.Filename != "" && p.Filename != uri {
		name = p.Filename + " (" + uri + ")"
	}
	out := []message.Part{synthetic(fmt.Sprintf("Attached the MCP resource %s of the server %s:", name, server))}
	err := errNoResources
	var text string
	var blobs []tool.Attachment
	if e.cfg.Resources != nil {
		text, blobs, err = e.cfg.Resources.ReadResource(ctx, server, uri)
	}
	if err != nil {
		msg := strings.TrimSpace(err.Error())
		e.cfg.Log.Warn("attaching an MCP resource", "server", server, "uri", uri, "err", msg)
		return append(out, synthetic(fmt.Sprintf("Failed to read the MCP resource %s: %s", name, msg)))
	}
	if text != "" {
		out = append(out, synthetic(text))
	}
	for _, b := range blobs {
		data, mime, ok := message.DecodeDataURL(b.URL)
		if b.Mime != "" {
			mime = b.Mime
		}
		switch {
		case !ok:
			out = append(out, synthetic(fmt.Sprintf("[Binary content (%s) that could not be decoded]", mime)))
		case !slices.Contains(resourceMedia, mime):
			out = append(out, synthetic(fmt.Sprintf("[Binary content (%s, %d bytes): not a type models accept]", mime, len(data))))
		case len(data) > maxResourceMedia:
			out = append(out, synthetic(fmt.Sprintf("[Binary content (%s, %d bytes): larger than 10 MB]", mime, len(data))))
		default:
			filename := b.Filename
			if filename == "" {
				filename = uri
			}
			out = append(out, &message.FilePart{Mime: mime, Filename: filename, URL: b.URL})
		}
	}
	return append(out, p)
}

func synthetic(text string) *message.TextPart {
	return &message.TextPart{Text: text, Synthetic: true}
}
