package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// GuardStreams wraps the HTTP transport of provider's model requests: a
// successful answer that cannot be a model's stream is turned into an
// error at once, which is not retried, instead of being read as a stream
// that broke and retried. That is what a wrong baseURL usually gets: a web
// page, an empty body, a plain-text "not found", or a JSON error object
// sent with status 200.
//
// Every model request streams, so an answer to a POST with status 200 must
// be an event stream. text/event-stream and Bedrock's
// application/vnd.amazon.eventstream pass (an empty one fails when its end
// is read); a web page fails at once; for any other or missing content type
// the start of the body decides: server-sent events pass, a JSON error
// object is classified like any provider error, and anything else fails
// with the content type and the start of the body.
// Secrets are kept out of the errors, URLs included.
func GuardStreams(provider string, secrets *Secrets, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return streamGuard{provider: provider, secrets: secrets, next: next}
}

type streamGuard struct {
	provider string
	secrets  *Secrets
	next     http.RoundTripper
}

// sniffLen bounds how much of a body is read to tell what it is, and
// maxJSON how much of a JSON answer is read to find an error in it.
const (
	sniffLen = 512
	maxJSON  = 64 << 10
)

func (g streamGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	where := Redact(req.URL.Redacted(), g.secrets.List()...)
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	media = strings.ToLower(media)
	if resp.ContentLength == 0 {
		resp.Body.Close()
		return nil, g.empty(where)
	}
	switch media {
	case "text/event-stream", "application/vnd.amazon.eventstream":
		resp.Body = &emptyCheck{ReadCloser: resp.Body, err: g.empty(where)}
		return resp, nil
	case "text/html", "application/xhtml+xml":
		resp.Body.Close()
		return nil, g.unexpected(media, where, "a web page, not a model's stream")
	}

	head, err := sniff(resp.Body)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	text := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case len(text) == 0:
		resp.Body.Close()
		return nil, g.empty(where)
	case isEventStream(text):
		resp.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(head), resp.Body), Closer: resp.Body}
		return resp, nil
	case text[0] == '{' || text[0] == '[':
		rest, _ := io.ReadAll(io.LimitReader(resp.Body, maxJSON))
		resp.Body.Close()
		body := append(head, rest...)
		if isErrorObject(body) {
			return nil, Classify(Failure{Provider: g.provider, Body: body, Header: resp.Header, Secrets: g.secrets.List()})
		}
		return nil, g.unexpected(media, where, "a complete JSON answer where a stream was expected")
	}
	resp.Body.Close()
	return nil, g.unexpected(media, where, strconv.Quote(cut(strings.TrimSpace(string(text)), 200)))
}

// unexpected is the error for an answer of the wrong kind.
func (g streamGuard) unexpected(media, where, what string) *Error {
	if media == "" {
		media = "(none)"
	}
	return &Error{Kind: ErrOther, Provider: g.provider, Message: Redact(fmt.Sprintf(
		"unexpected content type %s from %s: %s; check the provider's baseURL (provider.%s.options.baseURL)",
		media, where, what, g.provider), g.secrets.List()...)}
}

// empty is the error for an answer with no body.
func (g streamGuard) empty(where string) *Error {
	return &Error{Kind: ErrOther, Provider: g.provider, Message: fmt.Sprintf(
		"empty answer from %s; check the provider's baseURL (provider.%s.options.baseURL)", where, g.provider)}
}

// sniff reads the start of a body: up to its first line break after some
// text, sniffLen bytes, or its end. An error other than the end of the
// body is returned.
func sniff(r io.Reader) ([]byte, error) {
	buf := make([]byte, 0, sniffLen)
	for len(buf) < sniffLen {
		n, err := r.Read(buf[len(buf):sniffLen])
		buf = buf[:len(buf)+n]
		text := bytes.TrimLeft(buf, " \t\r\n\ufeff")
		if len(text) > 0 && bytes.IndexByte(text, '\n') >= 0 {
			break
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// isEventStream reports whether text starts like server-sent events: a
// field name and a colon, or a comment.
func isEventStream(text []byte) bool {
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(text, []byte(p)) {
			return true
		}
	}
	return false
}

// isErrorObject reports whether body is JSON holding an "error" member, or
// a list whose first element does (Gemini).
func isErrorObject(body []byte) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	if list, ok := v.([]any); ok && len(list) > 0 {
		v = list[0]
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = obj["error"]
	return ok
}

// emptyCheck turns the end of a body that held nothing into err.
type emptyCheck struct {
	io.ReadCloser
	n   int64
	err error
}

func (b *emptyCheck) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if errors.Is(err, io.EOF) && b.n == 0 {
		return n, b.err
	}
	return n, err
}

type readCloser struct {
	io.Reader
	io.Closer
}

// refusedLocal returns where a connection that err says was refused on
// this machine was going ("localhost:11434", or "localhost:11434
// (127.0.0.1:11434)" when the name resolved elsewhere), and "" for any
// other error. Nothing listening on a loopback address is not a fault that
// goes away by waiting; a refused remote address may be a server
// restarting, and stays retryable.
func refusedLocal(err error) string {
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return ""
	}
	var named, dialed string
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && isLocalHost(u.Hostname()) {
			named = u.Host
		}
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Addr != nil {
		host, _, splitErr := net.SplitHostPort(oe.Addr.String())
		if splitErr != nil {
			host = oe.Addr.String()
		}
		if !isLocalHost(host) {
			return ""
		}
		dialed = oe.Addr.String()
	}
	switch {
	case named != "" && dialed != "" && named != dialed:
		return named + " (" + dialed + ")"
	case named != "":
		return named
	}
	return dialed
}

// isLocalHost reports whether host names this machine: localhost, a
// loopback address (127.0.0.0/8, ::1) or the unspecified address.
func isLocalHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}
