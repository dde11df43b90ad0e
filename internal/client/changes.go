package client

import "encoding/json"

// ChangesKey is the metadata key under which a completed tool call lists
// the files it changed, whatever the tool (a codeloop extension beside
// OpenCode's own keys, which stay for OpenCode's clients).
const ChangesKey = "changes"

// The types of FileChange.
const (
	ChangeAdd    = "add"
	ChangeUpdate = "update"
	ChangeDelete = "delete"
	ChangeMove   = "move"
)

// FileChange is one file a tool call changed.
type FileChange struct {
	// Path is the file's absolute path; for a move, where it was, and
	// MovePath where it is now.
	Path     string `json:"path"`
	MovePath string `json:"movePath,omitempty"`
	Type     string `json:"type"`  // add, update, delete or move
	Patch    string `json:"patch"` // the change as a unified diff
	// Before and After are the file's whole texts when Whole says so;
	// a large file's change has its Patch only.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Whole  bool   `json:"whole,omitempty"`
}

// Target is where the file is after the change.
func (c FileChange) Target() string {
	if c.MovePath != "" {
		return c.MovePath
	}
	return c.Path
}

// Changes returns the files the call changed, as its tool reported them;
// nil for a call that changed none or whose tool does not say.
func (s *ToolState) Changes() []FileChange {
	if s == nil || s.Metadata == nil {
		return nil
	}
	raw, ok := s.Metadata[ChangesKey]
	if !ok {
		return nil
	}
	// The metadata holds the tool's own values in-process and decoded JSON
	// over the wire: one round trip reads both.
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var out []FileChange
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
