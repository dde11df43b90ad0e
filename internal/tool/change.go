package tool

// ChangesKey is the metadata key under which a call that changed files
// lists them, as []Change, so that front ends show every file-changing
// tool's changes the same way without knowing the tool.
const ChangesKey = "changes"

// ChangeType is what a change did to its file.
type ChangeType string

// The types of change.
const (
	ChangeAdd    ChangeType = "add"
	ChangeUpdate ChangeType = "update"
	ChangeDelete ChangeType = "delete"
	ChangeMove   ChangeType = "move"
)

// wholeTextLimit is the most bytes of before and after text together a
// Change carries; a larger change carries its patch only.
const wholeTextLimit = 128 << 10

// Change is one file a call changed.
type Change struct {
	Path     string     `json:"path"`               // absolute; for a move, where the file was
	MovePath string     `json:"movePath,omitempty"` // absolute; for a move, where it is now
	Type     ChangeType `json:"type"`
	Patch    string     `json:"patch"` // the unified diff of the change
	// Before and After are the file's whole texts before and after the
	// change when Whole says so (small files); only Patch otherwise.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Whole  bool   `json:"whole,omitempty"`
}

// newChange is a change of path from before to after, with the whole
// texts when they are small enough.
func newChange(typ ChangeType, path, movePath, patch, before, after string) Change {
	c := Change{Path: path, MovePath: movePath, Type: typ, Patch: patch}
	if len(before)+len(after) <= wholeTextLimit {
		c.Before, c.After, c.Whole = before, after, true
	}
	return c
}
