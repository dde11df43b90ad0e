package shellscan

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hidesLine reports whether src has a comment ending in a backslash with
// more text after it (see hiddenLine), and records why it is not analysed.
func (z *analyzer) hidesLine(src string, lang syntax.LangVariant) bool {
	c, ok := hiddenLine(src, lang)
	if ok {
		z.fail("a comment ending in a backslash (%s) hides what runs next: bash ends a comment at the end of its line "+
			"and runs the next line, which the analysis may read as part of the comment; remove the backslash at the "+
			"end of the comment", c)
	}
	return ok
}

// hiddenLine reports a comment of src that ends in a backslash with more
// text after it, and that comment's text. Bash ends a comment at the end
// of its line whatever the comment holds, so the next line runs; the
// parser of mvdan.cc/sh (v3.14.1) takes a backslash before the newline as
// a line continuation even in a comment, and reads the next line as part
// of the statement the comment follows, so the analysis would not see
// the commands on it. Such a text is not analysed.
func hiddenLine(src string, lang syntax.LangVariant) (string, bool) {
	if !strings.Contains(src, "#") || !strings.Contains(src, "\\") {
		return "", false
	}
	f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		return "", false
	}
	var found string
	hidden := false
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.Comment)
		if !ok || hidden {
			return !hidden
		}
		text := strings.TrimRight(c.Text, "\r\n")
		if !strings.HasSuffix(text, "\\") {
			return true
		}
		// A comment the parser ended at a line continuation holds the
		// newline; one that ends the text hides nothing.
		if strings.HasSuffix(c.Text, "\n") || strings.TrimSpace(src[min(int(c.End().Offset()), len(src)):]) != "" {
			found, hidden = "#"+text, true
		}
		return !hidden
	})
	return found, hidden
}
