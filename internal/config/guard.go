package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/trust"
)

// guard takes out of c, a layer read from the project's own file, everything
// that would make codeloop run a command or loosen a protection, and returns
// those items. What tightens stays: deny and ask rules become floor rules,
// servers and formatters can be turned off. The sandbox and server sections
// are moved into acc, to be weighed against the user's once every layer is
// read. data is the file's text, for line numbers.
//
// A provider's address, key and headers are held back when the user's
// credentials could reach it: a provider the user's config or the catalog
// knows (credentials(id)), or one for which the project names environment
// variables to read a key from. So are those of a provider only the project
// defines, unless its address is on this machine (onThisMachine).
func guard(c *Config, file string, data []byte, project string, credentials func(string) bool, acc *guarded) []trust.Item {
	g := guardCtx{file: file, data: data}
	if c.Shell != "" {
		g.add(trust.KindShell, "", c.Shell, "shell")
		c.Shell = ""
	}
	for _, name := range slices.Sorted(maps.Keys(c.MCP)) {
		m := c.MCP[name]
		if m.Enabled != nil && !*m.Enabled {
			c.MCP[name] = MCP{Type: m.Type, Enabled: m.Enabled} // turning a server off tightens
			continue
		}
		detail := strings.Join(m.Command, " ")
		if detail == "" {
			detail = m.URL
		}
		g.add(trust.KindMCP, name, detail, "mcp", name)
		delete(c.MCP, name)
	}
	c.LSP = g.guardServers(trust.KindLSP, c.LSP, "lsp")
	c.Formatter = g.guardServers(trust.KindFormatter, c.Formatter, "formatter")
	c.Permission = g.guardPermission(trust.KindPermission, "", c.Permission, "permission")
	for name, on := range c.Tools {
		if on {
			g.add(trust.KindPermission, "tools."+name, "true", "tools", name)
			delete(c.Tools, name)
		}
	}
	for _, section := range []struct {
		key    string
		agents map[string]Agent
	}{{"agent", c.Agent}, {"mode", c.Mode}} {
		for _, name := range slices.Sorted(maps.Keys(section.agents)) {
			a := section.agents[name]
			a.Permission = g.guardPermission(trust.KindAgent, name, a.Permission, section.key, name, "permission")
			for tool, on := range a.Tools {
				if on {
					g.add(trust.KindAgent, name, "tools."+tool+": true", section.key, name, "tools")
					delete(a.Tools, tool)
				}
			}
			section.agents[name] = a
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Command)) {
		cmd := c.Command[name]
		for _, snippet := range ShellSnippets(cmd.Template) {
			g.add(trust.KindCommand, name, "!`"+snippet+"`", "command", name)
		}
		cmd.Held = true
		c.Command[name] = cmd
	}
	for _, id := range slices.Sorted(maps.Keys(c.Provider)) {
		p := c.Provider[id]
		own := len(p.Env) == 0 && (credentials == nil || !credentials(id))
		if len(p.Env) > 0 {
			g.add(trust.KindProvider, id, "env: "+strings.Join(p.Env, ", "), "provider", id, "env")
			p.Env = nil
		}
		addrs := []string{p.API, p.Options.BaseURL, p.Options.EnterpriseURL}
		for _, m := range p.Models {
			if m.Provider != nil {
				addrs = append(addrs, m.Provider.API)
			}
		}
		if own && onThisMachine(addrs...) {
			// The project's own provider: no key of the user's goes
			// there. Its address must be on this machine, which the
			// project cannot answer on before it is trusted: a server
			// elsewhere would receive the conversation and, answering as
			// the model, choose the tool calls.
			c.Provider[id] = p
			continue
		}
		o := &p.Options
		for _, f := range []struct {
			key string
			set bool
		}{{"api", p.API != ""}, {"baseURL", o.BaseURL != ""}, {"apiKey", o.APIKey != ""},
			{"enterpriseUrl", o.EnterpriseURL != ""}, {"headers", len(o.Headers) > 0}} {
			if f.set {
				g.add(trust.KindProvider, id, f.key, "provider", id, f.key)
			}
		}
		p.API, o.BaseURL, o.APIKey, o.EnterpriseURL, o.Headers = "", "", "", "", nil
		p.Models = g.guardModels(id, p.Models, own)
		c.Provider[id] = p
	}
	if c.Search.BaseURL != "" || c.Search.APIKey != "" {
		g.add(trust.KindSearch, "", c.Search.BaseURL, "search")
		c.Search = Search{}
	}
	if c.Retention != "" {
		g.add(trust.KindRetention, "", c.Retention, "retention")
		c.Retention = ""
	}
	c.Instructions = slices.DeleteFunc(c.Instructions, func(in string) bool {
		if outside(in, filepath.Dir(file), project) {
			g.add(trust.KindInstructions, in, "outside the project", "instructions")
			return true
		}
		return false
	})
	if !c.Server.empty() {
		mergeValue(reflectOf(&acc.server), reflectOf(&c.Server))
		acc.serverFile, acc.serverData = file, data
		c.Server = Server{Port: c.Server.Port}
	}
	if !c.Sandbox.empty() {
		mergeValue(reflectOf(&acc.sandbox), reflectOf(&c.Sandbox))
		acc.sandboxFile, acc.sandboxData = file, data
		c.Sandbox = Sandbox{}
	}
	return g.items
}

// onThisMachine reports whether every address given (empty ones aside)
// is an http or https URL whose host is localhost or a loopback address.
func onThisMachine(addrs ...string) bool {
	for _, a := range addrs {
		if a == "" {
			continue
		}
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return false
		}
		host := u.Hostname()
		if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
			return false
		}
	}
	return true
}

// guarded is what the project's layers set in sections that are weighed
// against the user's once every layer is read.
type guarded struct {
	sandbox                 Sandbox
	sandboxFile, serverFile string
	sandboxData, serverData []byte
	server                  Server
}

// finish weighs the project's sandbox and server settings against the
// user's in c: what is stricter applies, the rest is held back.
func (acc *guarded) finish(c *Config) []trust.Item {
	var items []trust.Item
	g := guardCtx{file: acc.sandboxFile, data: acc.sandboxData}
	p, u := acc.sandbox, &c.Sandbox
	if p.Mode != "" && p.Mode != orDefault(u.Mode, "off") {
		if modeRank(p.Mode) > modeRank(u.Mode) {
			u.Mode = p.Mode
		} else {
			g.add(trust.KindSandbox, "sandbox.mode", fmt.Sprintf("%s (yours: %s)", p.Mode, orDefault(u.Mode, "off")), "sandbox", "mode")
		}
	}
	if p.Network != nil {
		if !*p.Network {
			u.Network = p.Network
		} else if u.Network == nil || !*u.Network {
			g.add(trust.KindSandbox, "sandbox.network", "true", "sandbox", "network")
		}
	}
	if len(p.Writable) > 0 {
		g.add(trust.KindSandbox, "sandbox.writable", strings.Join(p.Writable, ", "), "sandbox", "writable")
	}
	if p.AutoAllow != nil {
		if !*p.AutoAllow {
			u.AutoAllow = p.AutoAllow
		} else if u.AutoAllow == nil || !*u.AutoAllow {
			g.add(trust.KindSandbox, "sandbox.auto_allow", "true", "sandbox", "auto_allow")
		}
	}
	if p.Fallback != "" && p.Fallback != u.Fallback {
		if p.Fallback == "deny" {
			u.Fallback = p.Fallback
		} else if u.Fallback == "deny" {
			g.add(trust.KindSandbox, "sandbox.fallback", p.Fallback+" (yours: deny)", "sandbox", "fallback")
		}
	}
	items = append(items, g.items...)

	g = guardCtx{file: acc.serverFile, data: acc.serverData}
	s := acc.server
	if s.Hostname != "" {
		g.add(trust.KindServer, "server.hostname", s.Hostname, "server", "hostname")
	}
	if len(s.CORS) > 0 {
		g.add(trust.KindServer, "server.cors", strings.Join(s.CORS, ", "), "server", "cors")
	}
	if s.MDNS != nil && *s.MDNS {
		g.add(trust.KindServer, "server.mdns", "true", "server", "mdns")
	}
	return append(items, g.items...)
}

// modeRank orders sandbox modes from the weakest.
func modeRank(m string) int {
	switch m {
	case "workspace-write":
		return 1
	case "read-only":
		return 2
	}
	return 0
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (s Server) empty() bool {
	return s.Port == nil && s.Hostname == "" && s.MDNS == nil && s.MDNSDomain == "" && len(s.CORS) == 0
}

func (s Sandbox) empty() bool {
	return s.Mode == "" && s.Network == nil && len(s.Writable) == 0 && s.AutoAllow == nil && s.Fallback == ""
}

// outside reports whether an instruction entry names a URL or a path that
// leaves the project (absolute, ~/, or ../ beyond it).
func outside(in, dir, project string) bool {
	if strings.HasPrefix(in, "http://") || strings.HasPrefix(in, "https://") {
		return true
	}
	if strings.HasPrefix(in, "~") || strings.Contains(in, "$") {
		return true
	}
	p := in
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	r, err := filepath.Rel(project, filepath.Clean(p))
	return err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// GuardPermission turns the rules of a project the user has not trusted
// into floor rules, which can make the user's rules stricter and never
// looser (see permission.Evaluate), and returns its allow rules apart as
// what is held back. The allow rules stay among the floor rules, where they
// only keep an earlier deny of the project from covering them.
func GuardPermission(p Permission) (floor, held Permission) {
	for _, r := range p {
		if r.Action == "allow" {
			held = append(held, r)
		}
		r.Floor = true
		floor = append(floor, r)
	}
	return floor, held
}

// ShellSnippets returns the commands of a template's !`…` snippets.
func ShellSnippets(template string) []string {
	var out []string
	for rest := template; ; {
		i := strings.Index(rest, "!`")
		if i < 0 {
			return out
		}
		rest = rest[i+2:]
		j := strings.IndexByte(rest, '`')
		if j < 0 {
			return out
		}
		if cmd := strings.TrimSpace(rest[:j]); cmd != "" {
			out = append(out, cmd)
		}
		rest = rest[j+1:]
	}
}

// guardCtx collects the items of one file.
type guardCtx struct {
	file  string
	data  []byte
	items []trust.Item
}

// add records an item defined at the key path keys of the file.
// guardModels holds back the address a model entry of provider id gives
// (provider.api), which requests would go to instead of the provider's,
// with the user's key when the provider is not the project's own (own),
// and, then, its SDK package (provider.npm), which can choose another
// service's address.
func (g *guardCtx) guardModels(id string, models map[string]ProviderModel, own bool) map[string]ProviderModel {
	models = maps.Clone(models)
	for _, name := range slices.Sorted(maps.Keys(models)) {
		m := models[name]
		if m.Provider == nil {
			continue
		}
		mp := *m.Provider
		if mp.API != "" {
			g.add(trust.KindProvider, id, "models."+name+".provider.api", "provider", id, "models", name, "provider", "api")
			mp.API = ""
		}
		if !own && mp.NPM != "" {
			g.add(trust.KindProvider, id, "models."+name+".provider.npm", "provider", id, "models", name, "provider", "npm")
			mp.NPM = ""
		}
		m.Provider = &mp
		models[name] = m
	}
	return models
}

func (g *guardCtx) add(kind trust.Kind, name, detail string, keys ...string) {
	g.items = append(g.items, trust.Item{Kind: kind, Name: name, Detail: detail, File: g.file, Line: LineOf(g.data, keys...)})
}

func (g *guardCtx) guardPermission(kind trust.Kind, agent string, p Permission, keys ...string) Permission {
	kept, held := GuardPermission(p)
	for _, r := range held {
		rule := "allow"
		if r.Pattern != "*" {
			rule = r.Pattern + ": allow"
		}
		name, detail := r.Permission, rule
		if agent != "" {
			name, detail = agent, r.Permission+" "+rule
		}
		g.add(kind, name, detail, append(slices.Clone(keys), r.Permission)...)
	}
	return kept
}

// guardServers keeps of an lsp or formatter section only what turns servers
// off: false, or entries that say only "disabled": true.
func (g *guardCtx) guardServers(kind trust.Kind, raw json.RawMessage, key string) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw // true or false: the built-in servers, or none
	}
	kept := map[string]json.RawMessage{}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		var entry map[string]json.RawMessage
		if json.Unmarshal(obj[name], &entry) == nil && len(entry) == 1 && bytes.Equal(bytes.TrimSpace(entry["disabled"]), []byte("true")) {
			kept[name] = obj[name]
			continue
		}
		detail := "settings"
		var cmd struct {
			Command []string `json:"command"`
		}
		if json.Unmarshal(obj[name], &cmd) == nil && len(cmd.Command) > 0 {
			detail = strings.Join(cmd.Command, " ")
		}
		g.add(kind, name, detail, key, name)
	}
	if len(kept) == 0 {
		return nil
	}
	out, _ := json.Marshal(kept)
	return out
}

// LineOf returns the 1-based line of the last of keys, each searched as a
// quoted name after the previous one in data; 0 when the first is not
// found. It is a locator for messages, not a parser.
func LineOf(data []byte, keys ...string) int {
	at, found := 0, -1
	for _, k := range keys {
		i := bytes.Index(data[at:], []byte(`"`+k+`"`))
		if i < 0 {
			break
		}
		found = at + i
		at = found + len(k) + 2
	}
	if found < 0 {
		return 0
	}
	return 1 + bytes.Count(data[:found], []byte("\n"))
}

// reflectOf is the value p points to, for mergeValue.
func reflectOf[T any](p *T) reflect.Value { return reflect.ValueOf(p).Elem() }
