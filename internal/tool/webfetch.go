package tool

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/net/html"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/permission"
)

// Webfetch limits.
const (
	WebFetchMaxBytes       = 5 << 20
	WebFetchDefaultTimeout = 30 * time.Second
	WebFetchMaxTimeout     = 120 * time.Second
)

// webUserAgent is sent first; some sites serve browsers only.
const webUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"

type webFetchParams struct {
	URL     string `json:"url" jsonschema:"URL to fetch"`
	Format  string `json:"format,omitempty"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"Timeout in seconds (default 30, max 120)"`
}

func newWebFetch(env Env) Tool {
	return Must(Def[webFetchParams]{
		Traits:      Traits{Kind: KindFetch, Contained: true},
		Summary:     func(p webFetchParams, _ string) string { return p.URL },
		ID:          "webfetch",
		Description: describe("webfetch"),
		Schema: func(s *jsonschema.Schema) {
			f := prop(s, "format")
			f.Enum = []any{"text", "markdown", "html"}
			f.Default = []byte(`"markdown"`)
			prop(s, "timeout").ExclusiveMinimum = ptr(0.0)
		},
		Truncate: env.Truncator,
		Run: func(ctx context.Context, call *Call, p webFetchParams) (*Result, error) {
			return runWebFetch(ctx, env, call, p)
		},
	})
}

func runWebFetch(ctx context.Context, env Env, call *Call, p webFetchParams) (*Result, error) {
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("URL must start with http:// or https:// and name a host: %q", p.URL)
	}
	format := p.Format
	if format == "" {
		format = "markdown"
	}
	timeout := WebFetchDefaultTimeout
	if p.Timeout > 0 {
		timeout = min(time.Duration(p.Timeout)*time.Second, WebFetchMaxTimeout)
	}
	if err := call.Ask(ctx, permission.Request{
		Permission: "webfetch",
		Patterns:   []string{p.URL},
		Always:     []string{"*"},
		Metadata:   map[string]any{"url": p.URL, "format": format, "timeout": p.Timeout},
	}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := env.HTTPClient
	if client == nil {
		tr := llm.ProxyTransport(os.Getenv)
		defer tr.CloseIdleConnections()
		client = &http.Client{Transport: tr}
	}
	resp, err := fetch(ctx, client, p.URL, format, webUserAgent)
	if err == nil && resp.StatusCode == http.StatusForbidden && resp.Header.Get("Cf-Mitigated") == "challenge" {
		// A bot challenge: some sites let an honest agent through.
		resp.Body.Close()
		resp, err = fetch(ctx, client, p.URL, format, "codeloop")
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("request timed out after %s", timeout)
		}
		return nil, fmt.Errorf("fetching %s: %w", p.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("request failed with status code: %d", resp.StatusCode)
	}
	if resp.ContentLength > WebFetchMaxBytes {
		return nil, fmt.Errorf("response too large (exceeds 5MB limit)")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, WebFetchMaxBytes+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("request timed out after %s", timeout)
		}
		return nil, fmt.Errorf("reading %s: %w", p.URL, err)
	}
	if len(body) > WebFetchMaxBytes {
		return nil, fmt.Errorf("response too large (exceeds 5MB limit)")
	}
	contentType := resp.Header.Get("Content-Type")
	mime := strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	title := fmt.Sprintf("%s (%s)", p.URL, contentType)
	if strings.HasPrefix(mime, "image/") && mime != "image/svg+xml" {
		return &Result{
			Title:  title,
			Output: "Image fetched successfully",
			Attachments: []Attachment{{
				Mime: mime,
				URL:  "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(body),
			}},
		}, nil
	}
	isHTML := strings.Contains(mime, "html")
	out := string(body)
	switch {
	case format == "markdown" && isHTML:
		out, err = htmltomarkdown.ConvertString(out, converter.WithDomain(u.Scheme+"://"+u.Host))
		if err != nil {
			return nil, fmt.Errorf("converting %s to markdown: %w", p.URL, err)
		}
	case format == "text" && isHTML:
		out, err = htmlText(out)
		if err != nil {
			return nil, fmt.Errorf("extracting the text of %s: %w", p.URL, err)
		}
	}
	return &Result{Title: title, Output: out}, nil
}

func fetch(ctx context.Context, client *http.Client, rawURL, format, agent string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", agent)
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	switch format {
	case "markdown":
		req.Header.Set("Accept", "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1")
	case "text":
		req.Header.Set("Accept", "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1")
	default:
		req.Header.Set("Accept", "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.1")
	}
	return client.Do(req)
}

// htmlText is the visible text of an HTML document: scripts, styles and
// other non-content elements dropped, whitespace runs collapsed, block
// elements on lines of their own.
func htmlText(doc string) (string, error) {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "noscript", "iframe", "object", "embed", "template", "svg", "head":
				return
			case "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header", "footer", "pre", "blockquote", "table", "ul", "ol":
				b.WriteByte('\n')
				defer b.WriteByte('\n')
			}
		}
		if n.Type == html.TextNode {
			// Whitespace runs become one space; where the text had none,
			// none is added ("a <b>b</b>." stays "a b.").
			b.WriteString(collapseSpace(n.Data))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n"), nil
}

// collapseSpace replaces every run of white space in s by one space.
func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
