package prompt

import (
	"slices"
	"testing"
)

func TestImportRefs(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"See @README and @docs/git.md.", []string{"README", "docs/git.md"}},
		{"@~/.claude/x.md at the start", []string{"~/.claude/x.md"}},
		{"mail me@example.com", nil},
		{"code `@a.md` and ``@b.md ` x`` then @c.md", []string{"c.md"}},
		{"unclosed ` @a.md", []string{"a.md"}},
		{"```\n@in-fence.md\n```\n@after.md", []string{"after.md"}},
		{"~~~md\n@x.md\n~~~\n(@y.md)", nil},
		{"\t@tab.md, @/abs/path.md;", []string{"tab.md", "/abs/path.md"}},
		{"a lone @ sign", nil},
	}
	for _, tt := range tests {
		if got := importRefs(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("importRefs(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
