package github

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseReview(t *testing.T) {
	text := "The change is sound, two nits.\n\n" +
		"internal/a.go:12: this can be nil\n" +
		"- `b/c.txt:3`: typo\n" +
		"* **d.md:4-6** - reword\n" +
		"./e.go:9: leading dot\n" +
		"See https://example.com:443: not a comment\n" +
		"At 10:30: not a comment either\n" +
		"```\nf.go:1: inside a fence\n```\n" +
		"x.go:0: no line zero\n"
	summary, comments := ParseReview(text)
	want := []ReviewComment{
		{"internal/a.go", 12, "this can be nil"},
		{"b/c.txt", 3, "typo"},
		{"d.md", 6, "reword"},
		{"e.go", 9, "leading dot"},
	}
	if !reflect.DeepEqual(comments, want) {
		t.Errorf("comments = %+v\nwant %+v", comments, want)
	}
	for _, s := range []string{"The change is sound", "https://example.com:443", "At 10:30", "f.go:1: inside a fence", "x.go:0"} {
		if !strings.Contains(summary, s) {
			t.Errorf("summary lacks %q:\n%s", s, summary)
		}
	}
	if strings.Contains(summary, "this can be nil") {
		t.Errorf("summary holds a comment:\n%s", summary)
	}
}

func TestDiffLinesAndSplit(t *testing.T) {
	diff := `diff --git a/a.txt b/a.txt
index 1..2 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,4 @@
 one
-two
+zwei
+drei
 four
diff --git a/gone.txt b/gone.txt
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
`
	lines := DiffLines(diff)
	want := map[string]map[int]bool{"a.txt": {1: true, 2: true, 3: true, 4: true}}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("DiffLines = %v, want %v", lines, want)
	}
	summary, keep := SplitComments("ok", []ReviewComment{{"a.txt", 2, "in"}, {"a.txt", 9, "out"}, {"b.txt", 1, "elsewhere"}}, lines)
	if len(keep) != 1 || keep[0].Body != "in" {
		t.Errorf("kept %+v", keep)
	}
	if !strings.Contains(summary, "`a.txt:9`: out") || !strings.Contains(summary, "`b.txt:1`: elsewhere") {
		t.Errorf("summary = %q", summary)
	}
}
