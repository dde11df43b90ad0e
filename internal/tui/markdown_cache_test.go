package tui

import "testing"

// TestTrimRightSpace: the padding glamour puts at the end of a line goes,
// before or inside the escape sequences that close the line, and a line
// that ends in anything else is kept as it is.
func TestTrimRightSpace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"padded   ", "padded"},
		{"\x1b[1mbold\x1b[0m", "\x1b[1mbold\x1b[0m"},
		{"\x1b[1mbold   \x1b[0m", "\x1b[1mbold\x1b[0m\x1b[m"},
		{"ends in m", "ends in m"},
		{"\x1b[38;5;252mtext  \x1b[0m\x1b[0m", "\x1b[38;5;252mtext\x1b[0m\x1b[0m\x1b[m"},
		{"   ", ""},
	}
	for _, tt := range tests {
		if got := trimRightSpace(tt.in); got != tt.want {
			t.Errorf("trimRightSpace(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMarkdownBlockCache: a block rendered once is rendered the same from
// the cache, at its width only, and the cache is bounded.
func TestMarkdownBlockCache(t *testing.T) {
	md := newMarkdown(false, true)
	style := func(s string) string { return s }
	text := "A **bold** start.\n\n- one\n- two\n\n```go\nfunc f() {}\n```"
	first := md.render(text, 40, style)
	if len(md.blocks) != 3 {
		t.Fatalf("%d blocks cached, want 3", len(md.blocks))
	}
	again := md.render(text, 40, style)
	if len(again) != len(first) {
		t.Fatalf("the cached render has %d lines, the first %d", len(again), len(first))
	}
	for i := range first {
		if again[i] != first[i] {
			t.Errorf("line %d: %q from the cache, %q rendered", i, again[i], first[i])
		}
	}
	md.render(text, 20, style)
	if len(md.blocks) != 6 {
		t.Errorf("%d blocks cached after a second width, want 6", len(md.blocks))
	}
	for i := range maxCachedBlocks + 10 {
		md.renderBlock(string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)), 40, style)
	}
	if len(md.blocks) > maxCachedBlocks {
		t.Errorf("%d blocks cached, more than %d", len(md.blocks), maxCachedBlocks)
	}
}
