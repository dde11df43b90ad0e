package frontmatter

import (
	"bytes"
	"errors"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name        string
		src         string
		front, body string
		found       bool
		err         error
	}{
		{name: "none", src: "# Title\n\ntext\n", body: "# Title\n\ntext\n"},
		{name: "empty document", src: "", body: ""},
		{name: "simple", src: "---\nname: a\n---\nbody\n", front: "name: a\n", body: "body\n", found: true},
		{name: "empty front", src: "---\n---\nbody", front: "", body: "body", found: true},
		{name: "crlf", src: "---\r\nname: a\r\n---\r\nbody\r\n", front: "name: a\r\n", body: "body\r\n", found: true},
		{name: "bom", src: "\xef\xbb\xbf---\nname: a\n---\nbody", front: "name: a\n", body: "body", found: true},
		{name: "bom without front", src: "\xef\xbb\xbfbody", body: "body"},
		{name: "trailing spaces on delimiters", src: "--- \t\nk: v\n---  \nbody", front: "k: v\n", body: "body", found: true},
		{name: "dots close", src: "---\nk: v\n...\nbody", front: "k: v\n", body: "body", found: true},
		{name: "dots do not open", src: "...\nk: v\n...\nbody", body: "...\nk: v\n...\nbody"},
		{name: "closing at end of file", src: "---\nk: v\n---", front: "k: v\n", body: "", found: true},
		{name: "dashes alone", src: "---", body: "---"},
		{name: "not on first line", src: "\n---\nk: v\n---\n", body: "\n---\nk: v\n---\n"},
		{name: "four dashes are no delimiter", src: "----\nk: v\n----\n", body: "----\nk: v\n----\n"},
		{name: "longer dash line inside", src: "---\na: ----\n---\nb", front: "a: ----\n", body: "b", found: true},
		{name: "body keeps later rules", src: "---\nk: v\n---\ntext\n---\nmore\n", front: "k: v\n", body: "text\n---\nmore\n", found: true},
		{name: "unclosed", src: "---\nname: a\nbody\n", found: true, err: ErrUnclosed},
		{name: "opener only", src: "---\n", found: true, err: ErrUnclosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front, body, found, err := Split([]byte(tt.src))
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if found != tt.found {
				t.Errorf("found = %v, want %v", found, tt.found)
			}
			if err != nil {
				return
			}
			if string(front) != tt.front {
				t.Errorf("front = %q, want %q", front, tt.front)
			}
			if string(body) != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
		})
	}
}

func TestParse(t *testing.T) {
	type meta struct {
		Name        string   `yaml:"name"`
		Description string   `yaml:"description"`
		Hidden      bool     `yaml:"hidden"`
		Tags        []string `yaml:"tags"`
	}
	tests := []struct {
		name    string
		src     string
		want    meta
		body    string
		wantErr bool
	}{
		{
			name: "fields",
			src:  "---\nname: deploy\ndescription: Ship it\nhidden: yes\ntags: [a, b]\n---\n\nSteps.\n",
			want: meta{Name: "deploy", Description: "Ship it", Hidden: true, Tags: []string{"a", "b"}},
			body: "\nSteps.\n",
		},
		{
			name: "unquoted colon is repaired",
			src:  "---\nname: x\ndescription: Use when: the build fails\n---\nb",
			want: meta{Name: "x", Description: "Use when: the build fails"},
			body: "b",
		},
		{
			name: "repair keeps single quotes",
			src:  "---\ndescription: It's: fine\n---\n",
			want: meta{Description: "It's: fine"},
		},
		{name: "no frontmatter", src: "just text", body: "just text"},
		{name: "broken yaml", src: "---\nname: [unclosed\n---\n", wantErr: true},
		{name: "wrong type", src: "---\ntags: {a: 1}\n---\n", wantErr: true},
		{name: "unclosed", src: "---\nname: a\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got meta
			body, err := Parse([]byte(tt.src), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if string(body) != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
			if got.Name != tt.want.Name || got.Description != tt.want.Description || got.Hidden != tt.want.Hidden ||
				len(got.Tags) != len(tt.want.Tags) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestJoinRoundTrip(t *testing.T) {
	for _, c := range []struct{ front, body string }{
		{"name: a\n", "body\n"},
		{"", "body"},
		{"k: v", ""},
		{"a: 1\nb: 2\n", "---\nnot front\n---\n"},
	} {
		src := Join([]byte(c.front), []byte(c.body))
		front, body, found, err := Split(src)
		if err != nil || !found {
			t.Fatalf("Split(Join(%q, %q)) = found %v, err %v", c.front, c.body, found, err)
		}
		wantFront := c.front
		if wantFront != "" && wantFront[len(wantFront)-1] != '\n' {
			wantFront += "\n"
		}
		if string(front) != wantFront || string(body) != c.body {
			t.Errorf("round trip of (%q, %q) gave (%q, %q)", c.front, c.body, front, body)
		}
	}
}

// FuzzFrontmatter checks that Split never panics, that its results are the
// parts of its input, and that Join inverts it.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"", "---", "---\n", "---\n---\n", "---\nname: a\n---\nbody\n", "\xef\xbb\xbf---\r\nk: v\r\n...\r\nb",
		"text\n---\n", "--- \nk: v\n---\t\n", "---\na: b: c\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		front, body, found, err := Split(src)
		trimmed := bytes.TrimPrefix(src, bom)
		switch {
		case err != nil:
			if !errors.Is(err, ErrUnclosed) || !found {
				t.Fatalf("unexpected error %v (found %v)", err, found)
			}
			return
		case !found:
			if !bytes.Equal(body, trimmed) || front != nil {
				t.Fatalf("without frontmatter Split must return the input as body")
			}
			return
		}
		if !bytes.HasSuffix(trimmed, body) {
			t.Fatalf("body %q is not a suffix of the input", body)
		}
		if !bytes.Contains(trimmed, front) {
			t.Fatalf("front %q is not part of the input", front)
		}
		if len(front) > 0 && front[len(front)-1] != '\n' {
			t.Fatalf("front %q does not end at a line end", front)
		}
		f2, b2, found2, err2 := Split(Join(front, body))
		if err2 != nil || !found2 || !bytes.Equal(f2, front) || !bytes.Equal(b2, body) {
			t.Fatalf("Join does not invert Split: (%q, %q) became (%q, %q, %v, %v)", front, body, f2, b2, found2, err2)
		}
		var v map[string]any
		_, _ = Parse(src, &v) // must not panic
	})
}
