// Command gen builds codeloop's embedded model catalog from a snapshot of
// the models.dev data (a tar.gz of its providers/ and models/ TOML files).
// It writes a packed catalog (see internal/pack): an index of the
// providers, then each provider's models as JSON in the shape of
// https://models.dev/api.json, cut down to the fields codeloop reads.
//
// Run it through go generate in internal/llm/catalog.
package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/llm/catalog/internal/pack"
)

func main() {
	src := flag.String("src", "", "models.dev snapshot (.tar.gz)")
	out := flag.String("out", "", "output file (.json.gz)")
	flag.Parse()
	if *src == "" || *out == "" {
		log.Fatal("usage: gen -src snapshot.tar.gz -out catalog.json.gz")
	}
	if err := run(*src, *out); err != nil {
		log.Fatal(err)
	}
}

func run(src, out string) error {
	files, err := readTar(src)
	if err != nil {
		return err
	}
	cat, err := build(files)
	if err != nil {
		return err
	}
	var providers []pack.Provider
	for _, id := range slices.Sorted(maps.Keys(cat)) {
		p := cat[id]
		models, err := json.Marshal(p["models"])
		if err != nil {
			return err
		}
		var h pack.Provider
		b, _ := json.Marshal(p)
		if err := json.Unmarshal(b, &h); err != nil {
			return fmt.Errorf("provider %s: %w", id, err)
		}
		h.Models = models
		providers = append(providers, h)
	}
	data, err := pack.Encode(providers)
	if err != nil {
		return err
	}
	n := 0
	for _, p := range cat {
		n += len(p["models"].(map[string]any))
	}
	log.Printf("%d providers, %d models, %d bytes packed", len(cat), n, len(data))
	return os.WriteFile(out, data, 0o644)
}

// readTar returns the regular files of the archive by path, following
// symbolic links to files inside it.
func readTar(name string) (map[string]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	files := map[string]string{}
	links := map[string]string{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		p := path.Clean(h.Name)
		switch h.Typeflag {
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			files[p] = string(b)
		case tar.TypeSymlink:
			links[p] = path.Join(path.Dir(p), h.Linkname)
		}
	}
	for p, target := range links {
		for range 8 { // chains of links
			if next, ok := links[target]; ok {
				target = next
			}
		}
		if b, ok := files[target]; ok {
			files[p] = b
		}
	}
	return files, nil
}

// build assembles the catalog: providers with their models, each model
// merged over the base model it names.
func build(files map[string]string) (map[string]map[string]any, error) {
	parsed := map[string]map[string]any{}
	parse := func(p string) (map[string]any, error) {
		if m, ok := parsed[p]; ok {
			return m, nil
		}
		m, err := parseTOML(files[p])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		parsed[p] = m
		return m, nil
	}
	cat := map[string]map[string]any{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		parts := strings.Split(p, "/")
		if len(parts) != 3 || parts[0] != "providers" || parts[2] != "provider.toml" {
			continue
		}
		id := parts[1]
		prov, err := parse(p)
		if err != nil {
			return nil, err
		}
		entry := map[string]any{"id": id}
		for _, k := range []string{"name", "env", "npm", "api", "doc"} {
			if v, ok := prov[k]; ok {
				entry[k] = v
			}
		}
		models := map[string]any{}
		prefix := "providers/" + id + "/models/"
		for _, mp := range slices.Sorted(maps.Keys(files)) {
			if !strings.HasPrefix(mp, prefix) || !strings.HasSuffix(mp, ".toml") {
				continue
			}
			modelID := strings.TrimSuffix(strings.TrimPrefix(mp, prefix), ".toml")
			raw, err := parse(mp)
			if err != nil {
				return nil, err
			}
			m, err := resolve(raw, parse)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", mp, err)
			}
			m["id"] = modelID
			models[modelID] = trimModel(m)
		}
		entry["models"] = models
		cat[id] = entry
	}
	if len(cat) == 0 {
		return nil, errors.New("no providers in the snapshot")
	}
	return cat, nil
}

// resolve merges a provider model over its base_model: the provider's
// top-level fields (whole tables included) win, then base_model_omit
// removes dotted paths.
func resolve(m map[string]any, parse func(string) (map[string]any, error)) (map[string]any, error) {
	out := map[string]any{}
	if base, ok := m["base_model"].(string); ok {
		b, err := parse("models/" + base + ".toml")
		if err != nil {
			return nil, fmt.Errorf("base model %s: %w", base, err)
		}
		maps.Copy(out, b)
	}
	for k, v := range m {
		if k != "base_model" && k != "base_model_omit" {
			out[k] = v
		}
	}
	if omit, ok := m["base_model_omit"].([]any); ok {
		for _, o := range omit {
			s, _ := o.(string)
			deletePath(out, strings.Split(s, "."))
		}
	}
	return out, nil
}

func deletePath(m map[string]any, path []string) {
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	if sub, ok := m[path[0]].(map[string]any); ok {
		c := maps.Clone(sub) // tables may be shared with a base model
		deletePath(c, path[1:])
		m[path[0]] = c
	}
}

// trimModel keeps the fields codeloop reads, in api.json's names. Cost
// tiers become context_over_200k (what api.json calls the >200k tier) and,
// in full, tiers.
func trimModel(m map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"id", "name", "family", "release_date", "last_updated", "attachment", "reasoning",
		"temperature", "tool_call", "interleaved", "modalities", "open_weights", "limit", "status", "reasoning_options"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	if p, ok := m["provider"].(map[string]any); ok {
		kept := map[string]any{}
		for _, k := range []string{"npm", "api", "shape"} {
			if v, ok := p[k]; ok {
				kept[k] = v
			}
		}
		if len(kept) > 0 {
			out["provider"] = kept
		}
	}
	if c, ok := m["cost"].(map[string]any); ok {
		cost := map[string]any{}
		for _, k := range []string{"input", "output", "reasoning", "cache_read", "cache_write", "context_over_200k"} {
			if v, ok := c[k]; ok {
				cost[k] = v
			}
		}
		if tiers, ok := c["tiers"].([]any); ok {
			var kept []any
			for _, t := range tiers {
				tm, _ := t.(map[string]any)
				spec, _ := tm["tier"].(map[string]any)
				size, _ := spec["size"].(float64)
				if typ, _ := spec["type"].(string); (typ != "" && typ != "context") || size <= 0 {
					continue
				}
				tier := map[string]any{"size": size}
				for _, k := range []string{"input", "output", "cache_read", "cache_write"} {
					if v, ok := tm[k]; ok {
						tier[k] = v
					}
				}
				kept = append(kept, tier)
				if size == 200_000 && cost["context_over_200k"] == nil {
					over := maps.Clone(tier)
					delete(over, "size")
					cost["context_over_200k"] = over
				}
			}
			if len(kept) > 0 {
				cost["tiers"] = kept
			}
		}
		out["cost"] = cost
	}
	return out
}
