package provider

import (
	"context"
	"iter"
	"net/http"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// hinted wraps an adapter so that an authentication failure says which
// provider refused which credential, and what to do about it: the
// provider's own message ("invalid api key") names neither.
type hinted struct {
	llm.Provider
	hint string
}

// Stream streams req through the adapter, adding the hint to an
// authentication failure.
func (h *hinted) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		for ev := range h.Provider.Stream(ctx, req) {
			if ev.Type == llm.EventError && ev.Err != nil && ev.Err.Kind == llm.ErrAuth {
				e := *ev.Err
				e.Message = strings.TrimSuffix(strings.TrimSpace(e.Message), ".") + "; " + h.hint
				if e.StatusCode == http.StatusForbidden {
					e.Message += " (a 403 can also mean the credential may not use this model)"
				}
				ev.Err = &e
			}
			if !yield(ev) {
				return
			}
		}
	}
}

// authHint says, for a failure to authenticate with provider p through
// an adapter of kind k, where the refused credential came from and how to
// replace it.
func authHint(p *Info, k string) string {
	id := p.ID
	from := ""
	if p.cred != nil {
		from = p.cred.from
	}
	login := "codeloop auth login " + id
	switch {
	case from == fromConfig:
		return id + " refused the apiKey set in the config (provider." + id + ".options.apiKey): correct it, " +
			"or remove it and run " + login
	case from == fromAuth:
		h := id + " refused the key saved by codeloop auth login: run " + login + " to save a valid one"
		if len(p.Env) > 0 {
			h += ", or run codeloop auth logout " + id + " and set " + orList(p.Env)
		}
		return h
	case k == kindBedrock || k == kindVertex || k == kindVertexAnt:
		h := id + " refused the cloud credentials"
		if len(p.Env) > 0 {
			h += ": check " + strings.Join(p.Env, ", ")
		}
		return h + ", or run " + login + " to use an API key"
	case from != "":
		return id + " refused the key in " + from + ": set a valid key there, or unset it and run " + login
	}
	h := "no API key was sent to " + id + ": run " + login
	if len(p.Env) > 0 {
		h += " or set " + orList(p.Env)
	}
	return h
}

// orList joins names as "A", "A or B", "A, B or C".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
