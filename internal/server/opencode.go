package server

import (
	"fmt"
	"net/http"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

// providers returns the catalog's providers in OpenCode's shape.
func providers(cat client.ModelCatalog) []wire.Provider {
	out := make([]wire.Provider, 0, len(cat.Providers))
	for _, p := range cat.Providers {
		out = append(out, wire.ToProvider(p))
	}
	return out
}

// agents returns the agents in OpenCode's shape, secrets in their options
// masked.
func agents(list []client.Agent, err error) ([]wire.Agent, error) {
	if err != nil {
		return nil, err
	}
	out := make([]wire.Agent, 0, len(list))
	for _, a := range list {
		w := wire.ToAgent(a)
		maskSecrets(w.Options)
		out = append(out, w)
	}
	return out, nil
}

// notFound answers a request no route takes with the JSON error body: 405
// when the path is a route's with another method, 404 otherwise.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		alt := r.Clone(r.Context())
		alt.Method = m
		if _, pattern := s.mux.Handler(alt); pattern != "" && pattern != "/" {
			writeJSON(w, http.StatusMethodNotAllowed, errorBody{Name: "MethodNotAllowedError",
				Data: errorData{Message: fmt.Sprintf("%s %s: this route does not take %s", r.Method, r.URL.Path, r.Method)}})
			return
		}
	}
	writeJSON(w, http.StatusNotFound, errorBody{Name: "NotFoundError", Data: errorData{Message: fmt.Sprintf("no route %s %s; GET /doc lists them", r.Method, r.URL.Path)}})
}
