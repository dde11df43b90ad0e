package session

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// resourceServer serves resources by "<server>:<uri>", recording the reads.
type resourceServer struct {
	texts map[string]string
	blobs map[string][]tool.Attachment
	reads []string
}

func (r *resourceServer) ReadResource(_ context.Context, server, uri string) (string, []tool.Attachment, error) {
	key := server + ":" + uri
	r.reads = append(r.reads, key)
	text, okText := r.texts[key]
	blobs, okBlobs := r.blobs[key]
	if !okText && !okBlobs {
		return "", nil, fmt.Errorf("resource %s not found", uri)
	}
	return text, blobs, nil
}

func dataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// TestAttachResource sends user messages attaching MCP resources and checks
// what is stored and what the model is sent.
func TestAttachResource(t *testing.T) {
	t.Parallel()
	big := make([]byte, maxResourceMedia+1)
	res := &resourceServer{
		texts: map[string]string{
			"docs:test://readme": "# Read me",
			"docs:test://mixed":  "caption",
		},
		blobs: map[string][]tool.Attachment{
			"docs:test://logo":  {{Mime: "image/png", Filename: "test://logo", URL: dataURL("image/png", pngBytes)}},
			"docs:test://mixed": {{Mime: "application/pdf", URL: dataURL("application/pdf", []byte("%PDF-1.4"))}},
			"docs:test://svg":   {{Mime: "image/svg+xml", URL: dataURL("image/svg+xml", []byte("<svg/>"))}},
			"docs:test://big":   {{Mime: "image/png", URL: dataURL("image/png", big)}},
		},
	}
	ref := func(server, uri string) *message.FilePart {
		return &message.FilePart{Mime: "text/plain", Filename: uri, URL: uri,
			Source: message.ResourceSource(server, uri, "@"+server+":"+uri, 0, 0)}
	}
	tests := []struct {
		name      string
		resources Resources
		part      *message.FilePart
		// stored are the parts after the user's text: "text:<substring>"
		// for synthetic text, "file:<mime>:<url prefix>".
		stored []string
		// sent are substrings of the text the model receives; files the
		// media types of the files it receives.
		sent  []string
		files []string
	}{
		{
			name: "text", resources: res, part: ref("docs", "test://readme"),
			stored: []string{"text:Attached the MCP resource test://readme of the server docs", "text:# Read me", "file:text/plain:test://readme"},
			sent:   []string{"Attached the MCP resource test://readme", "# Read me"},
		},
		{
			name: "named resource", resources: res,
			part: &message.FilePart{Mime: "text/markdown", Filename: "readme", URL: "test://readme",
				Source: message.ResourceSource("docs", "test://readme", "@readme", 0, 7)},
			stored: []string{"text:the MCP resource readme (test://readme) of the server docs", "text:# Read me", "file:text/markdown:test://readme"},
			sent:   []string{"readme (test://readme)", "# Read me"},
		},
		{
			name: "image", resources: res, part: ref("docs", "test://logo"),
			stored: []string{"text:Attached the MCP resource test://logo", "file:image/png:data:image/png;base64,iVBOR", "file:text/plain:test://logo"},
			files:  []string{"image/png"},
		},
		{
			name: "text and a PDF", resources: res, part: ref("docs", "test://mixed"),
			stored: []string{"text:Attached", "text:caption", "file:application/pdf:data:application/pdf", "file:text/plain:test://mixed"},
			sent:   []string{"caption"},
			files:  []string{"application/pdf"},
		},
		{
			name: "unsupported media", resources: res, part: ref("docs", "test://svg"),
			stored: []string{"text:Attached", "text:[Binary content (image/svg+xml, 6 bytes): not a type models accept]", "file:text/plain:test://svg"},
			sent:   []string{"image/svg+xml, 6 bytes"},
		},
		{
			name: "too large", resources: res, part: ref("docs", "test://big"),
			stored: []string{"text:Attached", "text:larger than 10 MB", "file:text/plain:test://big"},
			sent:   []string{"larger than 10 MB"},
		},
		{
			name: "read fails", resources: res, part: ref("docs", "test://gone"),
			stored: []string{"text:Attached", "text:Failed to read the MCP resource test://gone: resource test://gone not found"},
			sent:   []string{"Failed to read the MCP resource test://gone"},
		},
		{
			name: "no resource reader", part: ref("docs", "test://readme"),
			stored: []string{"text:Attached", "text:Failed to read the MCP resource test://readme: " + errNoResources.Error()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, ":memory:")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			main := fakellm.NewScripted("fake", append(fakellm.Text("t", "Seen."), fakellm.Finish(llm.FinishStop, llm.Usage{})...))
			sessions := NewSessions(st, bus.New(time.Second), "test")
			eng, err := New(Config{
				Sessions: sessions, Models: &testModels{main: main, small: fakellm.NewScripted("fake")},
				Agents: StaticAgents{BuildAgent()}, Resources: tt.resources,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			sess, _ := sessions.Create(ctx, CreateInput{ProjectID: "p", Directory: t.TempDir(), Title: "Resource"})
			if _, err := eng.Prompt(ctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart("summarise"), tt.part}}); err != nil {
				t.Fatal(err)
			}
			msgs, _ := sessions.Messages(ctx, sess.ID)
			var got []string
			for _, p := range msgs[0].Parts[1:] {
				switch p := p.(type) {
				case *message.TextPart:
					if !p.Synthetic {
						t.Errorf("text part %q is not synthetic", p.Text)
					}
					got = append(got, "text:"+p.Text)
				case *message.FilePart:
					got = append(got, "file:"+p.Mime+":"+p.URL)
				}
			}
			if len(got) != len(tt.stored) {
				t.Fatalf("stored parts:\n%.300s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.stored, "\n"))
			}
			for i, want := range tt.stored {
				kind, rest, _ := strings.Cut(want, ":")
				if kind == "file" && !strings.HasPrefix(got[i], want) || !strings.Contains(got[i], rest) {
					t.Errorf("part %d = %.200q, want %q", i, got[i], want)
				}
			}
			reqs := main.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			var sent strings.Builder
			var files []string
			for _, p := range reqs[0].Messages[0].Parts {
				sent.WriteString(p.Text + "\n")
				if p.Type == llm.PartFile {
					files = append(files, p.MediaType)
					if len(p.Data) == 0 || p.URL != "" {
						t.Errorf("file sent without its data: %+v", p)
					}
				}
			}
			for _, want := range tt.sent {
				if !strings.Contains(sent.String(), want) {
					t.Errorf("the model was not sent %q:\n%s", want, sent.String())
				}
			}
			if strings.Join(files, ",") != strings.Join(tt.files, ",") {
				t.Errorf("files sent = %q, want %q", files, tt.files)
			}
		})
	}
	// Each attachment was read once, when its message was stored.
	if len(res.reads) != len(tests)-1 {
		t.Errorf("reads = %q, want %d", res.reads, len(tests)-1)
	}
}
