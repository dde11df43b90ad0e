package hook

import "encoding/json"

// NoticeEvent is the type of the bus event that carries a Notice to the
// front ends.
const NoticeEvent = "hook.notice"

// ToolResponse is a call's result as Claude Code's hooks expect it, for
// Input.ToolResponse: Bash's {stdout, stderr, interrupted, isImage},
// Write's and Edit's {filePath, success}, and for other tools the output,
// title and metadata. id is codeloop's tool id and input its arguments in
// codeloop's shape.
func ToolResponse(id string, input json.RawMessage, output, title string, metadata map[string]any) any {
	switch id {
	case "bash":
		return map[string]any{"stdout": output, "stderr": "", "interrupted": false, "isImage": false}
	case "write", "edit":
		var in struct {
			FilePath string `json:"filePath"`
		}
		_ = json.Unmarshal(input, &in)
		return map[string]any{"filePath": in.FilePath, "success": true, "output": output}
	}
	return map[string]any{"output": output, "title": title, "metadata": metadata}
}
