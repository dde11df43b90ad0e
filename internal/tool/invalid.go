package tool

import "context"

type invalidParams struct {
	Tool  string `json:"tool" jsonschema:"The tool the model tried to call"`
	Error string `json:"error" jsonschema:"What was wrong with the call"`
}

// newInvalid is the tool unrepairable calls are routed to: running it tells
// the model what to fix.
func newInvalid() Tool {
	return Must(Def[invalidParams]{
		Traits:      Traits{Kind: KindOther, Contained: true},
		Summary:     func(p invalidParams, _ string) string { return p.Tool },
		ID:          InvalidID,
		Description: describe("invalid"),
		Run: func(_ context.Context, _ *Call, p invalidParams) (*Result, error) {
			return &Result{
				Title:    "Invalid tool",
				Output:   "The arguments provided to the tool are invalid: " + p.Error,
				Metadata: map[string]any{"tool": p.Tool},
			}, nil
		},
	})
}
