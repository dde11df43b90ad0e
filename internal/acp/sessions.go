package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// detach keeps a request's work going when the editor goes away: a
// request read is answered even if the editor closed its stream right
// after sending it.
func detach(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// session is a session the editor created or loaded in this connection,
// with the choices made in the editor for its next prompts.
type session struct {
	id  string
	dir string
	c   client.Client

	mu      sync.Mutex
	agent   string           // the mode: a primary agent; empty for the default
	model   *client.ModelRef // nil for the agent's or the default
	turn    *turn            // the running prompt, nil when idle
	refused map[string]bool  // permission asks rejected always, by key
}

// running reports whether a prompt runs.
func (s *session) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn != nil
}

// choices returns the agent and model the next prompt uses.
func (s *session) choices() (string, *client.ModelRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var m *client.ModelRef
	if s.model != nil {
		c := *s.model
		m = &c
	}
	return s.agent, m
}

// Config option ids.
const (
	optionModel   = "model"
	optionVariant = "variant"
	variantNone   = "default"
)

// NewSession creates a session in the project at cwd.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	ctx = detach(ctx)
	servers, err := mcpServers(p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	c, dir, err := a.client(ctx, p.Cwd, servers)
	if err != nil {
		return sdk.NewSessionResponse{}, requestError(err)
	}
	info, err := c.CreateSession(ctx, client.CreateSessionInput{})
	if err != nil {
		return sdk.NewSessionResponse{}, requestError(err)
	}
	s := a.add(info, dir, c)
	modes, options, err := a.setup(ctx, s, info)
	if err != nil {
		return sdk.NewSessionResponse{}, requestError(err)
	}
	// The editor learns the session's id from this response; its first
	// update (the commands) follows once the response is out.
	written, stop := a.out.written(`"sessionId":"` + info.ID + `"`)
	a.goBackground(func() {
		defer stop()
		select {
		case <-written:
		case <-a.ctx.Done():
			return
		case <-time.After(10 * time.Second):
		}
		a.sendCommands(a.ctx, s)
	})
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(info.ID), Modes: modes, ConfigOptions: options,
		Meta: trustMeta(ctx, c)}, nil
}

// LoadSession opens a stored session and replays its history as updates
// before answering.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	ctx = detach(ctx)
	s, info, err := a.open(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := a.replay(ctx, s); err != nil {
		return sdk.LoadSessionResponse{}, requestError(err)
	}
	modes, options, err := a.setup(ctx, s, info)
	if err != nil {
		return sdk.LoadSessionResponse{}, requestError(err)
	}
	a.sendCommands(ctx, s)
	return sdk.LoadSessionResponse{Modes: modes, ConfigOptions: options, Meta: trustMeta(ctx, s.c)}, nil
}

// ResumeSession opens a stored session without replaying it.
func (a *Agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	ctx = detach(ctx)
	s, info, err := a.open(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	modes, options, err := a.setup(ctx, s, info)
	if err != nil {
		return sdk.ResumeSessionResponse{}, requestError(err)
	}
	a.sendCommands(ctx, s)
	return sdk.ResumeSessionResponse{Modes: modes, ConfigOptions: options}, nil
}

// open finds a stored session for load and resume.
func (a *Agent) open(ctx context.Context, id sdk.SessionId, cwd string, mcp []sdk.McpServer) (*session, client.Session, error) {
	servers, err := mcpServers(mcp)
	if err != nil {
		return nil, client.Session{}, err
	}
	c, dir, err := a.client(ctx, cwd, servers)
	if err != nil {
		return nil, client.Session{}, requestError(err)
	}
	info, err := c.GetSession(ctx, string(id))
	if err != nil {
		return nil, client.Session{}, requestError(fmt.Errorf("%w; session/list shows the sessions of a directory", err))
	}
	return a.add(info, dir, c), info, nil
}

// add records a session of this connection, keeping the choices already
// made for it when it was opened before.
func (a *Agent) add(info client.Session, dir string, c client.Client) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[info.ID]; ok && s.c == c {
		return s
	}
	s := &session{id: info.ID, dir: dir, c: c, agent: info.Agent}
	a.sessions[info.ID] = s
	return s
}

// CloseSession stops the session's prompt and forgets the session; it
// stays stored.
func (a *Agent) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	ctx = detach(ctx)
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	if err := a.cancel(ctx, s); err != nil {
		return sdk.CloseSessionResponse{}, requestError(err)
	}
	a.mu.Lock()
	delete(a.sessions, s.id)
	a.mu.Unlock()
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions lists the sessions of the directory named (the one
// codeloop started in when none is), newest first.
func (a *Agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	ctx = detach(ctx)
	cwd := a.opts.Dir
	if p.Cwd != nil && *p.Cwd != "" {
		cwd = *p.Cwd
	}
	c, _, err := a.client(ctx, cwd, nil)
	if err != nil {
		return sdk.ListSessionsResponse{}, requestError(err)
	}
	list, err := c.ListSessions(ctx, client.ListSessionsOptions{Roots: true})
	if err != nil {
		return sdk.ListSessionsResponse{}, requestError(err)
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, s := range list {
		title := s.Title
		updated := time.UnixMilli(s.Time.Updated).UTC().Format(time.RFC3339)
		out.Sessions = append(out.Sessions, sdk.SessionInfo{SessionId: sdk.SessionId(s.ID), Cwd: s.Directory, Title: &title, UpdatedAt: &updated})
	}
	return out, nil
}

// SetSessionMode switches the agent that answers the session's next
// prompts.
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	ctx = detach(ctx)
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	modes, err := a.modes(ctx, s, "")
	if err != nil {
		return sdk.SetSessionModeResponse{}, requestError(err)
	}
	if !slices.ContainsFunc(modes.AvailableModes, func(m sdk.SessionMode) bool { return m.Id == p.ModeId }) {
		return sdk.SetSessionModeResponse{}, invalidParams(fmt.Sprintf("mode %q does not exist; the modes are %s", p.ModeId, modeNames(modes)))
	}
	s.mu.Lock()
	s.agent = string(p.ModeId)
	s.mu.Unlock()
	return sdk.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption sets the session's model or its variant.
func (a *Agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	ctx = detach(ctx)
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, invalidParams("codeloop's config options take a value id")
	}
	v := p.ValueId
	s, err := a.lookup(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	cat, err := s.c.Models(ctx)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, requestError(err)
	}
	value := string(v.Value)
	switch v.ConfigId {
	case optionModel:
		m, ok := findModel(cat, value)
		if !ok {
			return sdk.SetSessionConfigOptionResponse{}, invalidParams(fmt.Sprintf("model %q is not available; codeloop models lists the models", value))
		}
		s.mu.Lock()
		s.model = &client.ModelRef{ProviderID: m.ProviderID, ModelID: m.ID}
		s.mu.Unlock()
	case optionVariant:
		s.mu.Lock()
		cur := s.currentModel(cat)
		s.mu.Unlock()
		m, ok := findModel(cat, cur.String())
		if value != variantNone && (!ok || !slices.Contains(m.Variants, value)) {
			return sdk.SetSessionConfigOptionResponse{}, invalidParams(fmt.Sprintf("variant %q does not exist for %s", value, cur))
		}
		if value == variantNone {
			value = ""
		}
		cur.Variant = value
		s.mu.Lock()
		s.model = &cur
		s.mu.Unlock()
	default:
		return sdk.SetSessionConfigOptionResponse{}, invalidParams(fmt.Sprintf("unknown config option %q: codeloop has %q and %q", v.ConfigId, optionModel, optionVariant))
	}
	info, err := s.c.GetSession(ctx, s.id)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, requestError(err)
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: configOptions(cat, s, info)}, nil
}

// setup returns a session's modes and config options.
func (a *Agent) setup(ctx context.Context, s *session, info client.Session) (*sdk.SessionModeState, []sdk.SessionConfigOption, error) {
	modes, err := a.modes(ctx, s, info.Agent)
	if err != nil {
		return nil, nil, err
	}
	cat, err := s.c.Models(ctx)
	if err != nil {
		return nil, nil, err
	}
	if info.Model != nil {
		s.mu.Lock()
		if s.model == nil {
			s.model = &client.ModelRef{ProviderID: info.Model.ProviderID, ModelID: info.Model.ID, Variant: info.Model.Variant}
		}
		s.mu.Unlock()
	}
	return modes, configOptions(cat, s, info), nil
}

// modes lists the primary agents; the current one is the session's
// choice, else stored, else the first.
func (a *Agent) modes(ctx context.Context, s *session, stored string) (*sdk.SessionModeState, error) {
	agents, err := s.c.Agents(ctx)
	if err != nil {
		return nil, err
	}
	st := &sdk.SessionModeState{AvailableModes: []sdk.SessionMode{}}
	for _, ag := range agents {
		if !ag.Primary() || ag.Hidden {
			continue
		}
		m := sdk.SessionMode{Id: sdk.SessionModeId(ag.Name), Name: ag.Name}
		if ag.Description != "" {
			d := ag.Description
			m.Description = &d
		}
		st.AvailableModes = append(st.AvailableModes, m)
	}
	s.mu.Lock()
	cur := s.agent
	s.mu.Unlock()
	if cur == "" {
		cur = stored
	}
	if cur == "" && len(st.AvailableModes) > 0 {
		cur = string(st.AvailableModes[0].Id)
	}
	st.CurrentModeId = sdk.SessionModeId(cur)
	return st, nil
}

func modeNames(st *sdk.SessionModeState) string {
	var names []string
	for _, m := range st.AvailableModes {
		names = append(names, string(m.Id))
	}
	return strings.Join(names, ", ")
}

// currentModel is the model the next prompt uses as far as the front end
// knows: the session's choice, else the catalog's default. s.mu is held.
func (s *session) currentModel(cat client.ModelCatalog) client.ModelRef {
	if s.model != nil {
		return *s.model
	}
	if cat.Default != nil {
		return *cat.Default
	}
	return client.ModelRef{}
}

func findModel(cat client.ModelCatalog, ref string) (client.Model, bool) {
	for _, p := range cat.Providers {
		for _, m := range p.Models {
			if p.ID+"/"+m.ID == ref {
				return m, true
			}
		}
	}
	return client.Model{}, false
}

// configOptions are the model picker and, for a model with reasoning
// variants, the variant picker.
func configOptions(cat client.ModelCatalog, s *session, info client.Session) []sdk.SessionConfigOption {
	s.mu.Lock()
	cur := s.currentModel(cat)
	s.mu.Unlock()
	var models sdk.SessionConfigSelectOptionsUngrouped
	for _, p := range cat.Providers {
		for _, m := range p.Models {
			name := m.Name
			if p.Name != "" {
				name = p.Name + ": " + name
			}
			models = append(models, sdk.SessionConfigSelectOption{Name: name, Value: sdk.SessionConfigValueId(p.ID + "/" + m.ID)})
		}
	}
	if len(models) == 0 {
		return nil
	}
	modelCat := sdk.SessionConfigOptionCategoryModel
	desc := "The model that answers the next prompts"
	out := []sdk.SessionConfigOption{{Select: &sdk.SessionConfigOptionSelect{
		Id: optionModel, Name: "Model", Description: &desc, Category: &modelCat, Type: "select",
		CurrentValue: sdk.SessionConfigValueId(cur.String()),
		Options:      sdk.SessionConfigSelectOptions{Ungrouped: &models},
	}}}
	m, ok := findModel(cat, cur.String())
	if !ok || len(m.Variants) == 0 {
		return out
	}
	variants := sdk.SessionConfigSelectOptionsUngrouped{{Name: "Default", Value: variantNone}}
	for _, v := range m.Variants {
		variants = append(variants, sdk.SessionConfigSelectOption{Name: v, Value: sdk.SessionConfigValueId(v)})
	}
	current := cur.Variant
	if current == "" {
		current = variantNone
	}
	level := sdk.SessionConfigOptionCategoryThoughtLevel
	vdesc := "How much the model reasons before answering"
	return append(out, sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{
		Id: optionVariant, Name: "Reasoning", Description: &vdesc, Category: &level, Type: "select",
		CurrentValue: sdk.SessionConfigValueId(current),
		Options:      sdk.SessionConfigSelectOptions{Ungrouped: &variants},
	}})
}

// sendCommands tells the editor the slash commands of the session's
// project.
func (a *Agent) sendCommands(ctx context.Context, s *session) {
	cmds, err := s.c.Commands(ctx)
	if err != nil {
		a.opts.Log.Warn("acp: listing commands", "err", err)
		return
	}
	list := []sdk.AvailableCommand{}
	for _, c := range cmds {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if ac.Description == "" {
			ac.Description = c.Name
		}
		if c.ArgumentHint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.ArgumentHint}}
		}
		list = append(list, ac)
	}
	u := sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: list}}
	if err := a.update(ctx, s.id, u); err != nil {
		a.opts.Log.Warn("acp: sending commands", "err", err)
	}
}

// trustMeta is the _meta of a session's response: whether the project is
// trusted and what of its own files is held back, under "codeloop".
func trustMeta(ctx context.Context, c client.Client) map[string]any {
	p, err := c.Path(ctx)
	if err != nil || p.Trust == nil {
		return nil
	}
	return map[string]any{"codeloop": map[string]any{"trust": p.Trust}}
}
