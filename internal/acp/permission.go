package acp

import (
	"context"
	"errors"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// The permission options offered to the editor, by id.
const (
	optionAllowOnce    = "allow_once"
	optionAllowAlways  = "allow_always"
	optionRejectOnce   = "reject_once"
	optionRejectAlways = "reject_always"
)

// permissionOptions are the four answers the protocol knows.
func permissionOptions() []sdk.PermissionOption {
	return []sdk.PermissionOption{
		{OptionId: optionAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optionAllowAlways, Name: "Always allow", Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optionRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		{OptionId: optionRejectAlways, Name: "Always reject", Kind: sdk.PermissionOptionKindRejectAlways},
	}
}

// askKey identifies what a request asks, for "always reject".
func askKey(req client.PermissionRequest) string {
	patterns := slices.Clone(req.Patterns)
	slices.Sort(patterns)
	return req.Permission + "\x00" + strings.Join(patterns, "\x00")
}

// ask puts a permission request to the editor in the background and
// replies with the editor's answer. An ask the editor was told to always
// reject in this session is rejected without asking. When the turn is
// cancelled the request is withdrawn and rejected.
func (a *Agent) ask(t *turn, s *session, req client.PermissionRequest) {
	key := askKey(req)
	s.mu.Lock()
	refused := s.refused[key]
	s.mu.Unlock()
	if refused {
		a.reply(s, req.ID, client.PermissionReply{Reply: client.ReplyReject})
		return
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		resp, err := a.conn.RequestPermission(t.asks, sdk.RequestPermissionRequest{
			SessionId: sdk.SessionId(s.id),
			ToolCall:  permissionCall(req, s.dir),
			Options:   permissionOptions(),
		})
		reply := client.PermissionReply{Reply: client.ReplyReject}
		switch {
		case err != nil:
			if t.asks.Err() == nil {
				a.opts.Log.Warn("acp: asking the editor for permission", "err", err)
			}
		case resp.Outcome.Selected != nil:
			switch resp.Outcome.Selected.OptionId {
			case optionAllowOnce:
				reply.Reply = client.ReplyOnce
			case optionAllowAlways:
				reply.Reply = client.ReplyAlways
			case optionRejectAlways:
				s.mu.Lock()
				if s.refused == nil {
					s.refused = map[string]bool{}
				}
				s.refused[key] = true
				s.mu.Unlock()
			}
		}
		a.reply(s, req.ID, reply)
	}()
}

// reply answers a permission request; one no longer pending (answered
// elsewhere, or dropped by an abort) is left alone.
func (a *Agent) reply(s *session, requestID string, r client.PermissionReply) {
	err := s.c.ReplyPermission(context.WithoutCancel(a.ctx), requestID, r)
	if err != nil && !errors.Is(err, client.ErrNotFound) {
		a.opts.Log.Warn("acp: replying to a permission request", "request", requestID, "err", err)
	}
}

// permissionCall describes the call that asks: its id when it is a tool
// call, what it asks for, and the change it would make.
func permissionCall(req client.PermissionRequest, dir string) sdk.ToolCallUpdate {
	id := "permission-" + req.ID
	if req.Tool != nil && req.Tool.CallID != "" {
		id = req.Tool.CallID
	}
	title := req.Permission
	if len(req.Patterns) > 0 {
		title += ": " + strings.Join(req.Patterns, ", ")
	}
	if req.Reason != "" {
		title += " (" + req.Reason + ")"
	}
	u := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: &title}
	kind := permissionKind(req.Permission)
	u.Kind = &kind
	if len(req.Metadata) > 0 {
		u.RawInput = req.Metadata
	}
	if diff, _ := req.Metadata["diff"].(string); diff != "" {
		path, _ := req.Metadata["filepath"].(string)
		if path != "" && !strings.Contains(path, ", ") {
			oldText, newText := hunkSides(diff)
			u.Content = []sdk.ToolCallContent{sdk.ToolDiffContent(absolute(dir, path), newText, oldText)}
		}
	}
	return u
}

// permissionKind is the tool kind of what a permission guards.
func permissionKind(permission string) sdk.ToolKind {
	switch permission {
	case "edit":
		return sdk.ToolKindEdit
	case "read":
		return sdk.ToolKindRead
	case "bash":
		return sdk.ToolKindExecute
	case "webfetch", "websearch":
		return sdk.ToolKindFetch
	case "grep", "glob", "list", "codesearch":
		return sdk.ToolKindSearch
	}
	return sdk.ToolKindOther
}
