package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// atomicTypes are replaced as a whole by a later layer, never merged.
var atomicTypes = map[reflect.Type]bool{
	typeTimeout:     true,
	typeInterleaved: true,
	typeSnapshot:    true,
	typeMCPOAuth:    true,
	typePlugin:      true,
}

// merge folds src into dst: objects key by key with src winning, permission
// rules appended (later rules win when evaluated), instructions concatenated
// without duplicates, secret file patterns concatenated in order, plugins de-duplicated by package name (later wins),
// other lists and scalars replaced when src sets them.
func merge(dst, src *Config) {
	instructions := dedupe(append(slices.Clone(dst.Instructions), src.Instructions...))
	plugins := mergePlugins(dst.Plugin, src.Plugin)
	hooks := mergeHooks(dst.Hooks, src.Hooks)
	tools := dedupe(append(slices.Clone(dst.CustomTools), src.CustomTools...))
	secrets := append(slices.Clone(dst.SecretFiles), src.SecretFiles...)
	mergeValue(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem())
	dst.Instructions = instructions
	dst.Plugin = plugins
	dst.Hooks = hooks
	dst.CustomTools = tools
	dst.SecretFiles = secrets
}

// mergeHooks concatenates the groups of each event, earlier files first.
func mergeHooks(a, b Hooks) Hooks {
	if a == nil && b == nil {
		return nil
	}
	out := Hooks{}
	for _, h := range []Hooks{a, b} {
		for event, groups := range h {
			out[event] = append(slices.Clip(out[event]), groups...)
		}
	}
	return out
}

func dedupe(list []string) []string {
	if list == nil {
		return nil
	}
	seen := map[string]bool{}
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// pluginName is a plugin spec without its version: "@scope/pkg@1.2" → "@scope/pkg".
func pluginName(spec string) string {
	if strings.HasPrefix(spec, "file:") || strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, ".") {
		return spec
	}
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		return spec[:i]
	}
	return spec
}

func mergePlugins(a, b []Plugin) []Plugin {
	if a == nil && b == nil {
		return nil
	}
	var out []Plugin
	for _, p := range append(slices.Clone(a), b...) {
		name := pluginName(p.Spec)
		out = slices.DeleteFunc(out, func(q Plugin) bool { return pluginName(q.Spec) == name })
		out = append(out, p)
	}
	return out
}

func mergeValue(dst, src reflect.Value) {
	t := dst.Type()
	switch {
	case t == typePermission:
		if src.Len() > 0 {
			dst.Set(reflect.AppendSlice(reflect.ValueOf(slices.Clone(dst.Interface().(Permission))), src))
		}
		return
	case t == typeRaw:
		dst.Set(reflect.ValueOf(mergeRaw(dst.Interface().(json.RawMessage), src.Interface().(json.RawMessage))))
		return
	case atomicTypes[t]:
		if !src.IsZero() {
			dst.Set(src)
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				mergeValue(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		if t.Elem().Kind() != reflect.Struct || atomicTypes[t.Elem()] || dst.IsNil() {
			dst.Set(src)
			return
		}
		mergeValue(dst.Elem(), src.Elem())
	case reflect.Map:
		if src.IsNil() {
			return
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(t, src.Len()))
		}
		iter := src.MapRange()
		for iter.Next() {
			k, sv := iter.Key(), iter.Value()
			dv := dst.MapIndex(k)
			if !dv.IsValid() {
				dst.SetMapIndex(k, sv)
				continue
			}
			merged := reflect.New(t.Elem()).Elem()
			merged.Set(dv)
			mergeValue(merged, sv)
			dst.SetMapIndex(k, merged)
		}
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		dm, dok := dst.Interface().(map[string]any)
		sm, sok := src.Interface().(map[string]any)
		if dok && sok {
			out := make(map[string]any, len(dm)+len(sm))
			for k, v := range dm {
				out[k] = v
			}
			mergeValue(reflect.ValueOf(out), reflect.ValueOf(sm))
			dst.Set(reflect.ValueOf(out))
			return
		}
		dst.Set(src)
	default:
		if !src.IsZero() {
			dst.Set(src)
		}
	}
}

// mergeRaw deep-merges two JSON objects; otherwise b wins when set.
func mergeRaw(a, b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return a
	}
	var ma, mb map[string]any
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil || ma == nil || mb == nil {
		return b
	}
	mergeValue(reflect.ValueOf(&ma).Elem(), reflect.ValueOf(mb))
	out, err := json.Marshal(ma)
	if err != nil {
		return b
	}
	return out
}
