package local

import (
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// The conversions below copy the engine's records into the client's
// types field by field; maps and raw JSON are shared, as the engine hands
// out snapshots that nobody changes afterwards.

func toSession(in session.Info) client.Session {
	out := client.Session{
		ID: in.ID, Slug: in.Slug, ProjectID: in.ProjectID, Directory: in.Directory, ParentID: in.ParentID,
		Title: in.Title, Version: in.Version, Agent: in.Agent, Cost: in.Cost, Revert: in.Revert,
		Time: client.SessionTime{Created: in.Time.Created, Updated: in.Time.Updated,
			Compacting: in.Time.Compacting, Archived: in.Time.Archived},
	}
	if in.Model != nil {
		out.Model = &client.SessionModel{ID: in.Model.ID, ProviderID: in.Model.ProviderID, Variant: in.Model.Variant}
	}
	if in.Tokens != nil {
		t := toTokens(*in.Tokens)
		out.Tokens = &t
	}
	if in.Summary != nil {
		out.Summary = &client.SessionSummary{Additions: in.Summary.Additions, Deletions: in.Summary.Deletions, Files: in.Summary.Files}
	}
	if in.Share != nil {
		out.Share = &client.SessionShare{URL: in.Share.URL}
	}
	out.Permission = toRules(in.Permission)
	out.Sandbox = in.Sandbox
	return out
}

func toRules(rs permission.Ruleset) []client.PermissionRule {
	if len(rs) == 0 {
		return nil
	}
	out := make([]client.PermissionRule, len(rs))
	for i, r := range rs {
		out[i] = client.PermissionRule{Permission: r.Permission, Pattern: r.Pattern, Action: string(r.Action)}
	}
	return out
}

func toTokens(t message.Tokens) client.Tokens {
	return client.Tokens{Total: t.Total, Input: t.Input, Output: t.Output, Reasoning: t.Reasoning,
		Cache: client.TokensCache{Read: t.Cache.Read, Write: t.Cache.Write}}
}

func toError(e *message.Error) *client.MessageError {
	if e == nil {
		return nil
	}
	return &client.MessageError{Name: e.Name, Data: client.MessageErrorData{
		Message: e.Data.Message, ProviderID: e.Data.ProviderID, StatusCode: e.Data.StatusCode, IsRetryable: e.Data.IsRetryable,
	}}
}

func toStatus(s session.Status) client.SessionStatus {
	return client.SessionStatus{Type: string(s.Type), Attempt: s.Attempt, Max: s.Max, Message: s.Message, Next: s.Next}
}

func toMessages(in []message.Message) []client.Message {
	out := make([]client.Message, len(in))
	for i, m := range in {
		out[i] = toMessage(m)
	}
	return out
}

func toMessage(m message.Message) client.Message {
	out := client.Message{Info: toInfo(m.Info), Parts: make([]client.Part, 0, len(m.Parts))}
	for _, p := range m.Parts {
		out.Parts = append(out.Parts, toPart(p))
	}
	return out
}

func toInfo(in message.Info) client.MessageInfo {
	out := client.MessageInfo{
		ID: in.ID, SessionID: in.SessionID, Role: string(in.Role), Agent: in.Agent,
		Time: client.MessageTime{Created: in.Time.Created, Completed: in.Time.Completed},
	}
	switch in.Role {
	case message.RoleUser:
		out.Model = &client.ModelRef{ProviderID: in.Model.ProviderID, ModelID: in.Model.ModelID, Variant: in.Model.Variant}
		out.System = in.System()
	case message.RoleAssistant:
		t := toTokens(in.Tokens)
		out.ParentID, out.ModelID, out.ProviderID = in.ParentID, in.ModelID, in.ProviderID
		out.Mode, out.Variant, out.Summary, out.Cost = in.Mode, in.Variant, in.Summary, in.Cost
		out.Path = &client.MessagePath{Cwd: in.Path.Cwd, Root: in.Path.Root}
		out.Tokens, out.Finish, out.Error = &t, in.Finish, toError(in.Error)
	}
	return out
}

func toPart(p message.Part) client.Part {
	b := p.Base()
	out := client.Part{ID: b.ID, SessionID: b.SessionID, MessageID: b.MessageID, Type: p.Type()}
	switch p := p.(type) {
	case *message.TextPart:
		out.Text, out.Synthetic, out.Ignored = p.Text, p.Synthetic, p.Ignored
		if p.Time != nil {
			out.Time = &client.PartTime{Start: p.Time.Start, End: p.Time.End}
		}
	case *message.ReasoningPart:
		out.Text = p.Text
		out.Time = &client.PartTime{Start: p.Time.Start, End: p.Time.End}
	case *message.FilePart:
		out.Mime, out.Filename, out.URL, out.Source = p.Mime, p.Filename, p.URL, p.Source
	case *message.ToolPart:
		out.CallID, out.Tool, out.Kind, out.Summary = p.CallID, p.Tool, p.Kind, p.Summary
		for _, t := range p.Touches {
			out.Touches = append(out.Touches, client.ToolTouch{Path: t.Path, Line: t.Line, Write: t.Write})
		}
		s := p.State
		out.State = &client.ToolState{
			Status: string(s.Status), Input: s.Input, Raw: s.Raw, Output: s.Output, Title: s.Title,
			Metadata: s.Metadata, Error: s.Error,
		}
		if s.Time.Start != 0 || s.Time.End != 0 {
			out.State.Time = &client.ToolTime{Start: s.Time.Start, End: s.Time.End}
		}
	case *message.StepStartPart:
		out.Snapshot = p.Snapshot
	case *message.StepFinishPart:
		t := toTokens(p.Tokens)
		out.Reason, out.Snapshot, out.Cost, out.Tokens = p.Reason, p.Snapshot, p.Cost, &t
	case *message.SnapshotPart:
		out.Snapshot = p.Snapshot
	case *message.PatchPart:
		out.Hash, out.Files, out.Skipped = p.Hash, p.Files, p.Skipped
	case *message.AgentPart:
		out.Name = p.Name
	case *message.SubtaskPart:
		out.Prompt, out.Description, out.Agent, out.Command = p.Prompt, p.Description, p.Agent, p.Command
		if p.Model != nil {
			out.Model = &client.ModelRef{ProviderID: p.Model.ProviderID, ModelID: p.Model.ModelID, Variant: p.Model.Variant}
		}
	case *message.RetryPart:
		out.Attempt = p.Attempt
		out.Error = toError(&p.Error)
		out.Time = &client.PartTime{Created: p.Time.Created}
	case *message.CompactionPart:
		out.Auto, out.Overflow = p.Auto, p.Overflow
	}
	return out
}

func toPermission(r permission.Request) client.PermissionRequest {
	out := client.PermissionRequest{
		ID: r.ID, SessionID: r.SessionID, Permission: r.Permission, Patterns: r.Patterns,
		Metadata: r.Metadata, Always: r.Always, Reason: r.Reason, Protected: r.Protected,
	}
	if r.Tool != nil {
		out.Tool = &client.ToolRef{MessageID: r.Tool.MessageID, CallID: r.Tool.CallID}
	}
	// OpenCode's clients read these as an object and arrays.
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	if out.Patterns == nil {
		out.Patterns = []string{}
	}
	if out.Always == nil {
		out.Always = []string{}
	}
	return out
}

func toQuestion(q tool.QuestionRequest) client.QuestionRequest {
	out := client.QuestionRequest{ID: q.ID, SessionID: q.SessionID, Questions: make([]client.QuestionInfo, len(q.Questions))}
	for i, qi := range q.Questions {
		c := client.QuestionInfo{Question: qi.Question, Header: qi.Header, Multiple: qi.Multiple,
			Options: make([]client.QuestionOption, len(qi.Options))}
		for j, o := range qi.Options {
			c.Options[j] = client.QuestionOption{Label: o.Label, Description: o.Description}
		}
		out.Questions[i] = c
	}
	if q.Tool != nil {
		out.Tool = &client.ToolRef{MessageID: q.Tool.MessageID, CallID: q.Tool.CallID}
	}
	return out
}

func toTodos(ts []store.Todo) []client.Todo {
	out := make([]client.Todo, len(ts))
	for i, t := range ts {
		out[i] = client.Todo{ID: t.ID, Content: t.Content, Status: t.Status, Priority: t.Priority}
	}
	return out
}
