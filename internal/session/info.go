package session

import (
	"crypto/rand"
	"encoding/json"
	"math/big"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
)

// Info is a session's record, in OpenCode's JSON shape.
type Info struct {
	ID          string             `json:"id"`
	Slug        string             `json:"slug"`
	ProjectID   string             `json:"projectID"`
	WorkspaceID string             `json:"workspaceID,omitempty"`
	Directory   string             `json:"directory"`
	Path        json.RawMessage    `json:"path,omitempty"`
	ParentID    string             `json:"parentID,omitempty"`
	Summary     *Summary           `json:"summary,omitempty"`
	Cost        float64            `json:"cost,omitempty"`
	Tokens      *message.Tokens    `json:"tokens,omitempty"`
	Share       *Share             `json:"share,omitempty"`
	Title       string             `json:"title"`
	Agent       string             `json:"agent,omitempty"`
	Model       *ModelInfo         `json:"model,omitempty"`
	Version     string             `json:"version"`
	Metadata    map[string]any     `json:"metadata,omitempty"`
	Time        Time               `json:"time"`
	Permission  permission.Ruleset `json:"permission,omitempty"`
	// Sandbox is the OS sandbox mode the session's shell commands run in
	// at least (see tool.Call.Sandbox); empty leaves the configured one.
	Sandbox string          `json:"sandbox,omitempty"`
	Revert  json.RawMessage `json:"revert,omitempty"`
}

// Summary counts the changes a session made.
type Summary struct {
	Additions int               `json:"additions"`
	Deletions int               `json:"deletions"`
	Files     int               `json:"files"`
	Diffs     []json.RawMessage `json:"diffs,omitempty"`
}

// Share is where a session is shared.
type Share struct {
	URL string `json:"url"`
}

// ModelInfo is the model a session last used.
type ModelInfo struct {
	ID         string `json:"id"`
	ProviderID string `json:"providerID"`
	Variant    string `json:"variant,omitempty"`
}

// Time holds a session's timestamps in Unix milliseconds.
type Time struct {
	Created    int64 `json:"created"`
	Updated    int64 `json:"updated"`
	Compacting int64 `json:"compacting,omitempty"`
	Archived   int64 `json:"archived,omitempty"`
}

// Title prefixes of sessions that have not been given a title yet.
const (
	DefaultTitlePrefix = "New session - "
	ChildTitlePrefix   = "Child session - "
)

// DefaultTitle is the title of a new session created at t.
func DefaultTitle(t time.Time, child bool) string {
	p := DefaultTitlePrefix
	if child {
		p = ChildTitlePrefix
	}
	return p + t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// IsDefaultTitle reports whether title is one DefaultTitle makes.
func IsDefaultTitle(title string) bool {
	for _, p := range []string{DefaultTitlePrefix, ChildTitlePrefix} {
		if rest, ok := strings.CutPrefix(title, p); ok {
			_, err := time.Parse("2006-01-02T15:04:05.000Z", rest)
			return err == nil
		}
	}
	return false
}

// Words of session slugs.
const (
	slugAdjectives = "brave calm clever cosmic crisp eager gentle glad golden happy jolly kind lucky mellow " +
		"misty nimble proud quick quiet rapid shiny silent steady sunny swift tidy vivid witty"
	slugNouns = "badger beacon canyon comet falcon forest garden harbor island lagoon meadow nebula orchid " +
		"otter panda pine planet river rocket sparrow summit tiger valley walrus willow wizard"
)

// newSlug returns a random adjective-noun name.
func newSlug() string {
	pick := func(list string) string {
		words := strings.Fields(list)
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(words))))
		if err != nil {
			return words[0]
		}
		return words[n.Int64()]
	}
	return pick(slugAdjectives) + "-" + pick(slugNouns)
}
