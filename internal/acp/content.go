package acp

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// The media types the engine gives special meaning.
const (
	mimeText      = "text/plain"
	mimeDirectory = "application/x-directory"
)

// promptParts turns the editor's content blocks into the parts of a user
// message: text as text; an image, or an embedded binary resource, as a
// data: URL file; an embedded text resource as a text file the engine
// puts in the message; a link to a local file or directory as a file: URL
// the engine reads; a link to anything else as a line of text naming it.
func promptParts(blocks []sdk.ContentBlock) ([]client.PartInput, error) {
	var out []client.PartInput
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			out = append(out, client.TextInput(b.Text.Text))
		case b.Image != nil:
			img := b.Image
			if img.Data == "" {
				if img.Uri != nil && *img.Uri != "" {
					out = append(out, linkPart(*img.Uri, "", img.MimeType))
					continue
				}
				return nil, invalidParams(fmt.Sprintf("prompt block %d: an image needs data", i))
			}
			name := "image"
			if img.Uri != nil && *img.Uri != "" {
				name = baseName(*img.Uri)
			}
			out = append(out, client.PartInput{Type: client.PartFile, Mime: img.MimeType, Filename: name,
				URL: "data:" + img.MimeType + ";base64," + img.Data})
		case b.ResourceLink != nil:
			l := b.ResourceLink
			mt := ""
			if l.MimeType != nil {
				mt = *l.MimeType
			}
			out = append(out, linkPart(l.Uri, l.Name, mt))
		case b.Resource != nil:
			p, err := embeddedPart(b.Resource.Resource)
			if err != nil {
				return nil, invalidParams(fmt.Sprintf("prompt block %d: %v", i, err))
			}
			out = append(out, p)
		case b.Audio != nil:
			return nil, invalidParams(fmt.Sprintf("prompt block %d: codeloop does not take audio", i))
		default:
			return nil, invalidParams(fmt.Sprintf("prompt block %d: unknown content type", i))
		}
	}
	return out, nil
}

// linkPart is a file part for a file: URI and a text part naming any other
// resource.
func linkPart(uri, name, mt string) client.PartInput {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		if name == "" || name == uri {
			return client.TextInput(uri)
		}
		return client.TextInput(fmt.Sprintf("%s (%s)", name, uri))
	}
	p := filepath.FromSlash(u.Path)
	if name == "" {
		name = filepath.Base(p)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		mt = mimeDirectory
	} else if mt == "" || strings.HasPrefix(mt, "text/") || !mediaType(mt) {
		if guess := mime.TypeByExtension(filepath.Ext(p)); mediaType(guess) {
			mt = guess
		} else {
			mt = mimeText
		}
	}
	return client.PartInput{Type: client.PartFile, Mime: mt, Filename: name, URL: (&url.URL{Scheme: "file", Path: filepath.ToSlash(p), RawQuery: u.RawQuery}).String()}
}

// mediaType reports whether files of type mt go to the model as they are
// (images and PDFs) rather than as text.
func mediaType(mt string) bool {
	mt, _, _ = strings.Cut(mt, ";")
	return strings.HasPrefix(mt, "image/") || mt == "application/pdf"
}

// embeddedPart is a file part holding an embedded resource's contents.
func embeddedPart(r sdk.EmbeddedResourceResource) (client.PartInput, error) {
	switch {
	case r.TextResourceContents != nil:
		t := r.TextResourceContents
		return client.PartInput{Type: client.PartFile, Mime: mimeText, Filename: resourceName(t.Uri),
			URL: "data:" + mimeText + ";base64," + base64.StdEncoding.EncodeToString([]byte(t.Text))}, nil
	case r.BlobResourceContents != nil:
		b := r.BlobResourceContents
		mt := "application/octet-stream"
		if b.MimeType != nil && *b.MimeType != "" {
			mt = *b.MimeType
		}
		if _, err := base64.StdEncoding.DecodeString(b.Blob); err != nil {
			return client.PartInput{}, fmt.Errorf("resource %s: the blob is not base64: %w", b.Uri, err)
		}
		return client.PartInput{Type: client.PartFile, Mime: mt, Filename: resourceName(b.Uri),
			URL: "data:" + mt + ";base64," + b.Blob}, nil
	}
	return client.PartInput{}, fmt.Errorf("an embedded resource needs text or a blob")
}

// resourceName is the path of a file: URI, else the URI.
func resourceName(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && u.Path != "" {
		return filepath.FromSlash(u.Path)
	}
	return uri
}

func baseName(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Path != "" {
		return path.Base(u.Path)
	}
	return uri
}
