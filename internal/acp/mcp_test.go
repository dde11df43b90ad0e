package acp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestMCPServers converts the servers of session/new as the editor sends
// them, and refuses those codeloop cannot connect.
func TestMCPServers(t *testing.T) {
	for _, c := range []struct {
		name, json string
		want       []MCPServer
		err        string
	}{
		{name: "none", json: `[]`},
		{
			name: "all three, sorted",
			json: `[{"name":"zed","command":"/bin/srv","args":["-v"],"env":[{"name":"K","value":"V"}]},
				{"type":"http","name":"http","url":"http://127.0.0.1:1/mcp","headers":[{"name":"Authorization","value":"Bearer t"}]},
				{"type":"sse","name":"events","url":"http://127.0.0.1:1/sse","headers":[]}]`,
			want: []MCPServer{
				{Name: "events", URL: "http://127.0.0.1:1/sse"},
				{Name: "http", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer t"}},
				{Name: "zed", Command: "/bin/srv", Args: []string{"-v"}, Env: map[string]string{"K": "V"}},
			},
		},
		{name: "no name", json: `[{"type":"http","name":"","url":"http://x","headers":[]}]`, err: "has no name"},
		{name: "no url", json: `[{"type":"sse","name":"s","url":"","headers":[]}]`, err: `("s") has no url`},
		{name: "no command", json: `[{"name":"s","command":"","args":[],"env":[]}]`, err: `("s") has no command`},
		{name: "twice", json: `[{"type":"http","name":"a","url":"http://x","headers":[]},{"type":"sse","name":"a","url":"http://y","headers":[]}]`, err: `"a" is used twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in []sdk.McpServer
			if err := json.Unmarshal([]byte(c.json), &in); err != nil {
				t.Fatal(err)
			}
			got, err := mcpServers(in)
			if c.err != "" {
				re, ok := err.(*sdk.RequestError)
				if !ok || re.Code != -32602 || !strings.Contains(re.Message, c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
	if clientKey("/p", nil) == clientKey("/p", []MCPServer{{Name: "a", URL: "http://x"}}) {
		t.Error("a session with servers shares the client of one without")
	}
}
