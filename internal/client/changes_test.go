package client

import (
	"encoding/json"
	"reflect"
	"testing"
)

// change mirrors the shape a tool writes into the metadata in-process.
type change struct {
	Path     string `json:"path"`
	MovePath string `json:"movePath,omitempty"`
	Type     string `json:"type"`
	Patch    string `json:"patch"`
	Before   string `json:"before,omitempty"`
	After    string `json:"after,omitempty"`
	Whole    bool   `json:"whole,omitempty"`
}

func TestToolStateChanges(t *testing.T) {
	t.Parallel()
	want := []FileChange{{Path: "/p/a", MovePath: "/p/b", Type: ChangeMove, Patch: "@@", Before: "x\n", After: "y\n", Whole: true}}
	wire, _ := json.Marshal(map[string]any{ChangesKey: want})
	var decoded map[string]any
	if err := json.Unmarshal(wire, &decoded); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		st   *ToolState
		want []FileChange
	}{
		{"in-process values", &ToolState{Metadata: map[string]any{ChangesKey: []change{{Path: "/p/a", MovePath: "/p/b", Type: "move", Patch: "@@", Before: "x\n", After: "y\n", Whole: true}}}}, want},
		{"decoded JSON", &ToolState{Metadata: decoded}, want},
		{"no changes", &ToolState{Metadata: map[string]any{"diff": "@@"}}, nil},
		{"not a list", &ToolState{Metadata: map[string]any{ChangesKey: "x"}}, nil},
		{"no state", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.st.Changes(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Changes() = %+v, want %+v", got, tt.want)
			}
		})
	}
	if got := want[0].Target(); got != "/p/b" {
		t.Errorf("Target() = %q", got)
	}
}
