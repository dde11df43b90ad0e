// Package pack is the catalog's storage format: a one-line JSON index of
// the providers (their header fields and where their models are), followed
// by each provider's models as a JSON object. Reading the index costs
// microseconds; a provider's models are decoded only when asked for, from
// their own slice of the data, with no scan of the rest.
//
// Only the catalog package and its generator import it.
package pack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Magic starts every packed catalog.
const Magic = "codeloop-catalog-1\n"

// Provider is one provider as stored: its header fields and its models.
type Provider struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Env    []string        `json:"env,omitempty"`
	NPM    string          `json:"npm,omitempty"`
	API    string          `json:"api,omitempty"`
	Doc    string          `json:"doc,omitempty"`
	Models json.RawMessage `json:"-"`

	// Off and Len locate Models in the data after the index.
	Off int `json:"off"`
	Len int `json:"len"`
}

// Encode packs providers in the order given.
func Encode(providers []Provider) ([]byte, error) {
	var body bytes.Buffer
	index := make([]Provider, len(providers))
	for i, p := range providers {
		models := p.Models
		if len(models) == 0 {
			models = json.RawMessage("{}")
		}
		p.Off, p.Len = body.Len(), len(models)
		body.Write(models)
		index[i] = p
	}
	head, err := json.Marshal(index)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(Magic)+len(head)+1+body.Len())
	out = append(out, Magic...)
	out = append(out, head...)
	out = append(out, '\n')
	return append(out, body.Bytes()...), nil
}

// Is reports whether data is a packed catalog.
func Is(data []byte) bool { return bytes.HasPrefix(data, []byte(Magic)) }

// Decode reads the index; each provider's Models is a slice of data.
func Decode(data []byte) ([]Provider, error) {
	if !Is(data) {
		return nil, errors.New("not a packed catalog")
	}
	rest := data[len(Magic):]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, errors.New("packed catalog: no index")
	}
	var index []Provider
	if err := json.Unmarshal(rest[:nl], &index); err != nil {
		return nil, fmt.Errorf("packed catalog index: %w", err)
	}
	body := rest[nl+1:]
	for i, p := range index {
		if p.Off < 0 || p.Len < 0 || p.Off+p.Len > len(body) {
			return nil, fmt.Errorf("packed catalog: provider %s lies outside the data", p.ID)
		}
		index[i].Models = body[p.Off : p.Off+p.Len : p.Off+p.Len]
	}
	return index, nil
}
