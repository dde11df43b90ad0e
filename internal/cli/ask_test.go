package cli

import (
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
)

func TestParseInlineReply(t *testing.T) {
	tests := []struct {
		line string
		want permission.Reply
	}{
		{"o\n", permission.Reply{Kind: permission.ReplyOnce}},
		{"Yes\n", permission.Reply{Kind: permission.ReplyOnce}},
		{" a \n", permission.Reply{Kind: permission.ReplyAlways}},
		{"always\n", permission.Reply{Kind: permission.ReplyAlways}},
		{"\n", permission.Reply{Kind: permission.ReplyReject}},
		{"", permission.Reply{Kind: permission.ReplyReject}},
		{"n\n", permission.Reply{Kind: permission.ReplyReject}},
		{"use git mv instead\n", permission.Reply{Kind: permission.ReplyReject, Message: "use git mv instead"}},
	}
	for _, tt := range tests {
		if got := parseInlineReply(tt.line); got != tt.want {
			t.Errorf("parseInlineReply(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}
