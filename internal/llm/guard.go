package llm

import (
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"syscall"
)

// GuardStreams wraps an HTTP transport for model requests: a successful
// answer that cannot be a model's stream (a web page, an empty body) is
// turned into an error at once, which is not retried, instead of being
// read as a stream that broke. It is what a wrong baseURL usually gets.
func GuardStreams(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return streamGuard{next: next}
}

type streamGuard struct{ next http.RoundTripper }

func (g streamGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	where := req.URL.Redacted()
	ct := resp.Header.Get("Content-Type")
	media, _, _ := mime.ParseMediaType(ct)
	var msg string
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		msg = fmt.Sprintf("unexpected content type %s from %s: a web page, not a model's answer; check the provider's baseURL", ct, where)
	case resp.ContentLength == 0:
		msg = fmt.Sprintf("empty answer from %s; check the provider's baseURL", where)
	default:
		return resp, nil
	}
	resp.Body.Close()
	return nil, &Error{Kind: ErrOther, Message: msg, StatusCode: resp.StatusCode}
}

// refusedLoopback returns the address of a connection that err says was
// refused on this machine, "" otherwise. Nothing listening on a loopback
// address is not a fault that goes away by waiting.
func refusedLoopback(err error) string {
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return ""
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Addr != nil {
		host, _, splitErr := net.SplitHostPort(oe.Addr.String())
		if splitErr != nil {
			host = oe.Addr.String()
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return oe.Addr.String()
		}
		return ""
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			h := u.Hostname()
			if h == "localhost" {
				return u.Host
			}
			if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
				return u.Host
			}
		}
	}
	return ""
}
