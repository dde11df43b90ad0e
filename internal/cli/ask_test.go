package cli

import (
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

func TestParseInlineReply(t *testing.T) {
	tests := []struct {
		line string
		want client.PermissionReply
	}{
		{"o\n", client.PermissionReply{Reply: client.ReplyOnce}},
		{"Yes\n", client.PermissionReply{Reply: client.ReplyOnce}},
		{" a \n", client.PermissionReply{Reply: client.ReplyAlways}},
		{"always\n", client.PermissionReply{Reply: client.ReplyAlways}},
		{"\n", client.PermissionReply{Reply: client.ReplyReject}},
		{"", client.PermissionReply{Reply: client.ReplyReject}},
		{"n\n", client.PermissionReply{Reply: client.ReplyReject}},
		{"use git mv instead\n", client.PermissionReply{Reply: client.ReplyReject, Message: "use git mv instead"}},
	}
	for _, tt := range tests {
		if got := parseInlineReply(tt.line); got != tt.want {
			t.Errorf("parseInlineReply(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}
