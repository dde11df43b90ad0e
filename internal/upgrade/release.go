// Package upgrade finds codeloop's newest release, downloads the archive
// for this platform, checks it against the release's checksums.txt and
// replaces the running executable with the binary inside, keeping the old
// one until the new one has answered --version.
//
// Releases are laid out as GitHub publishes them: under a base URL,
// BASE/latest redirects to BASE/tag/vX.Y.Z, and a release's files are at
// BASE/download/vX.Y.Z/NAME. Archive names carry no version
// (codeloop_linux_amd64.tar.gz), so BASE/latest/download/NAME always
// names the newest one.
package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// DefaultBaseURL is where codeloop's releases are published.
const DefaultBaseURL = "https://github.com/codeloop/codeloop/releases"

// DefaultAPIURL is the GitHub API's answer for the newest release.
const DefaultAPIURL = "https://api.github.com/repos/codeloop/codeloop/releases/latest"

// Source says where releases come from.
type Source struct {
	// BaseURL is the releases' base URL (DefaultBaseURL, a mirror or a
	// test server).
	BaseURL string
	// APIURL, when set, is asked for the newest release's tag (the GitHub
	// API); otherwise BaseURL/latest is expected to redirect to it.
	APIURL string
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// UserAgent is sent with every request.
	UserAgent string
}

// NewSource returns the source named by the environment:
// CODELOOP_RELEASE_URL when set, else GitHub.
func NewSource(getenv func(string) string, userAgent string) Source {
	if base := strings.TrimRight(getenv("CODELOOP_RELEASE_URL"), "/"); base != "" {
		return Source{BaseURL: base, UserAgent: userAgent}
	}
	return Source{BaseURL: DefaultBaseURL, APIURL: DefaultAPIURL, UserAgent: userAgent}
}

// client returns the client for the requests. It follows at most ten
// redirects, and none from https to another scheme: over plain http
// anyone on the path could change the archive and checksums.txt alike.
func (s Source) client() *http.Client {
	c := http.Client{}
	if s.Client != nil {
		c = *s.Client
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("%s redirects to %s, which is not https", via[0].URL.Redacted(), req.URL.Redacted())
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

func (s Source) request(ctx context.Context, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if s.UserAgent != "" {
		req.Header.Set("User-Agent", s.UserAgent)
	}
	return req, nil
}

// Latest returns the tag of the newest release, such as v1.2.3.
func (s Source) Latest(ctx context.Context) (string, error) {
	if s.APIURL != "" {
		return s.latestFromAPI(ctx)
	}
	return s.latestFromRedirect(ctx)
}

func (s Source) latestFromAPI(ctx context.Context) (string, error) {
	req, err := s.request(ctx, s.APIURL)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := s.client().Do(req)
	if err != nil {
		return "", fmt.Errorf("finding the newest release: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("finding the newest release: %s answered %s", s.APIURL, resp.Status)
	}
	var rel struct {
		TagName string `json:"tag_name"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&rel); err != nil {
		return "", fmt.Errorf("finding the newest release: reading %s: %w", s.APIURL, err)
	}
	if !validTag(rel.TagName) {
		return "", fmt.Errorf("finding the newest release: %s gave the tag %q", s.APIURL, rel.TagName)
	}
	return rel.TagName, nil
}

func (s Source) latestFromRedirect(ctx context.Context) (string, error) {
	u := s.BaseURL + "/latest"
	req, err := s.request(ctx, u)
	if err != nil {
		return "", err
	}
	c := *s.client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("finding the newest release: %w", err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
		return "", fmt.Errorf("finding the newest release: %s answered %s, not a redirect to the release", u, resp.Status)
	}
	target, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("finding the newest release: %s redirects to %q: %w", u, loc, err)
	}
	tag := path.Base(target.Path)
	if !strings.Contains(target.Path, "/tag/") || !validTag(tag) {
		return "", fmt.Errorf("finding the newest release: %s redirects to %q, not to a release tag", u, loc)
	}
	return tag, nil
}

// validTag reports whether tag looks like a release tag (v and a version).
func validTag(tag string) bool {
	_, ok := parseVersion(tag)
	return ok && strings.HasPrefix(tag, "v")
}

// Tag returns the release tag for version v, which may lack the leading v.
func Tag(v string) string {
	if strings.HasPrefix(v, "v") {
		return v
	}
	return "v" + v
}

// AssetName returns the name of the release archive for goos and goarch.
func AssetName(goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return "codeloop_" + goos + "_" + goarch + ext
}

// Download returns the bytes of the release file name of the release tag,
// at most limit bytes of them.
func (s Source) Download(ctx context.Context, tag, name string, limit int64) ([]byte, error) {
	u := s.BaseURL + "/download/" + tag + "/" + name
	req, err := s.request(ctx, u)
	if err != nil {
		return nil, err
	}
	resp, err := s.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("downloading %s: %s answered %s", name, u, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("downloading %s: larger than %d bytes", name, limit)
	}
	return data, nil
}

// ErrChecksum is returned when a download does not match checksums.txt.
var ErrChecksum = errors.New("checksum mismatch")
