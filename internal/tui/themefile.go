package tui

import (
	"embed"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
)

// builtinThemeFiles are codeloop's own themes, in OpenCode's theme file
// format.
//
//go:embed themes/*.json
var builtinThemeFiles embed.FS

// maxThemeFile bounds the size of a theme file read.
const maxThemeFile = 1 << 20

// themeFile is a theme in OpenCode's format: named colours (defs) and
// the theme's keys, each a colour for both backgrounds or a {dark,
// light} pair. A colour is "#rrggbb", "#rgb", a def's name, an ANSI
// colour number (0–255), or "none".
type themeFile struct {
	Defs  map[string]json.RawMessage `json:"defs"`
	Theme map[string]json.RawMessage `json:"theme"`
}

// colorTheme is a theme read from a file: its name, where it came from
// and its colours resolved for a dark and a light background.
type colorTheme struct {
	name, source string
	dark, light  map[string]color.Color
}

// parseThemeFile reads a theme file; any error says what is wrong where.
func parseThemeFile(name, source string, data []byte) (colorTheme, error) {
	var f themeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return colorTheme{}, fmt.Errorf("%s: %w", source, err)
	}
	if len(f.Theme) == 0 {
		return colorTheme{}, fmt.Errorf("%s: no \"theme\" key with colours", source)
	}
	t := colorTheme{name: name, source: source, dark: map[string]color.Color{}, light: map[string]color.Color{}}
	keys := make([]string, 0, len(f.Theme))
	for k := range f.Theme {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := f.Theme[k]
		var pair struct {
			Dark  json.RawMessage `json:"dark"`
			Light json.RawMessage `json:"light"`
		}
		dark, light := raw, raw
		if len(raw) > 0 && raw[0] == '{' {
			if err := json.Unmarshal(raw, &pair); err != nil {
				return colorTheme{}, fmt.Errorf("%s: theme.%s: %w", source, k, err)
			}
			dark, light = pair.Dark, pair.Light
			if dark == nil {
				dark = light
			}
			if light == nil {
				light = dark
			}
		}
		for _, v := range []struct {
			raw json.RawMessage
			out map[string]color.Color
		}{{dark, t.dark}, {light, t.light}} {
			c, err := resolveColor(v.raw, f.Defs, 0)
			if err != nil {
				return colorTheme{}, fmt.Errorf("%s: theme.%s: %w", source, k, err)
			}
			if c != nil {
				v.out[k] = c
			}
		}
	}
	return t, nil
}

// resolveColor reads one colour, following defs (at most eight deep).
func resolveColor(raw json.RawMessage, defs map[string]json.RawMessage, depth int) (color.Color, error) {
	if depth > 8 {
		return nil, fmt.Errorf("defs refer to each other in a loop")
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var n float64
	if json.Unmarshal(raw, &n) == nil {
		if n < 0 || n > 255 || n != float64(int(n)) {
			return nil, fmt.Errorf("%v is not an ANSI colour (0 to 255)", n)
		}
		return lipgloss.Color(strconv.Itoa(int(n))), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("want a colour, got %s", raw)
	}
	switch {
	case s == "none" || s == "transparent" || s == "":
		return nil, nil
	case strings.HasPrefix(s, "#"):
		if !isHexColor(s[1:]) {
			return nil, fmt.Errorf("%q is not a colour (#rrggbb)", s)
		}
		return lipgloss.Color(s), nil
	}
	def, ok := defs[s]
	if !ok {
		return nil, fmt.Errorf("%q is neither a colour nor one of defs", s)
	}
	return resolveColor(def, defs, depth+1)
}

func isHexColor(s string) bool {
	if len(s) != 3 && len(s) != 6 {
		return false
	}
	_, err := strconv.ParseUint(s, 16, 32)
	return err == nil
}

// loadThemes reads the built-in themes, then the user's
// (~/.config/opencode/themes/*.json) and the project's
// (.opencode/themes/*.json), a later one of a name replacing an earlier.
// A file that cannot be read or parsed is left out and reported.
func loadThemes(configHome, projectDir string) (map[string]colorTheme, []string) {
	themes := map[string]colorTheme{}
	var problems []string
	entries, _ := builtinThemeFiles.ReadDir("themes")
	for _, e := range entries {
		b, err := builtinThemeFiles.ReadFile("themes/" + e.Name())
		if err != nil {
			continue
		}
		name := strings.TrimSuffix(e.Name(), ".json")
		if t, err := parseThemeFile(name, "built-in "+name, b); err == nil {
			themes[name] = t
		} else {
			problems = append(problems, err.Error())
		}
	}
	var dirs []string
	if configHome != "" {
		dirs = append(dirs, filepath.Join(configHome, "opencode", "themes"))
	}
	if projectDir != "" {
		dirs = append(dirs, filepath.Join(projectDir, ".opencode", "themes"))
	}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		sort.Strings(files)
		for _, path := range files {
			name := strings.TrimSuffix(filepath.Base(path), ".json")
			if _, fixed := fixedThemes[name]; fixed {
				problems = append(problems, fmt.Sprintf("%s: %s is a built-in name; the file is left out", path, name))
				continue
			}
			b, err := readSmall(path)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			t, err := parseThemeFile(name, path, b)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			themes[name] = t
		}
	}
	return themes, problems
}

// fixedThemes are the themes made in code rather than read from a file.
var fixedThemes = map[string]string{
	"auto":  "follow the terminal's background",
	"dark":  "light text on a dark background",
	"light": "dark text on a light background",
	"plain": "no colour: bold, faint and reverse only",
}

// readSmall reads a file of at most maxThemeFile bytes.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxThemeFile {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, maxThemeFile)
	}
	b := make([]byte, info.Size())
	_, err = f.ReadAt(b, 0)
	if err != nil && info.Size() > 0 {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return b, nil
}

// themeFromColors makes the view's styles from a theme file's colours,
// taking the built-in dark or light theme's for the keys it lacks.
func themeFromColors(name string, cs map[string]color.Color, dark bool) theme {
	th := newTheme(false, dark)
	th.name = name
	get := func(keys ...string) (color.Color, bool) {
		for _, k := range keys {
			if c, ok := cs[k]; ok {
				return c, true
			}
		}
		return nil, false
	}
	fg := func(st *lipgloss.Style, keys ...string) {
		if c, ok := get(keys...); ok {
			*st = st.Foreground(c)
		}
	}
	fg(&th.accent, "primary", "accent")
	fg(&th.title, "primary", "accent")
	fg(&th.border, "border", "borderActive", "primary")
	fg(&th.user, "text")
	fg(&th.text, "markdownText", "text")
	fg(&th.faint, "textMuted")
	fg(&th.reasoning, "textMuted")
	fg(&th.toolName, "secondary", "info", "primary")
	fg(&th.ok, "success")
	fg(&th.bad, "error")
	fg(&th.warn, "warning")
	fg(&th.code, "markdownCodeBlock", "text")
	fg(&th.diffAdd, "diffAdded")
	fg(&th.diffDel, "diffRemoved")
	fg(&th.diffHunk, "diffHunkHeader", "info")
	fg(&th.lineNo, "diffLineNumber", "textMuted")
	if c, ok := get("diffAddedBg"); ok {
		th.diffAdd = th.diffAdd.Background(c)
	}
	if c, ok := get("diffRemovedBg"); ok {
		th.diffDel = th.diffDel.Background(c)
	}
	if c, ok := get("primary", "accent"); ok {
		th.selected = th.selected.Background(c)
		if bg, ok := get("background"); ok {
			th.selected = th.selected.Foreground(bg)
		}
	}
	if md, ok := th.md.(*markdownText); ok {
		md.recolor(cs)
	}
	return th
}

// colorTheme's colours for a background: a theme with one mode only
// gives it for both.
func (t colorTheme) colors(dark bool) map[string]color.Color {
	if dark {
		return t.dark
	}
	return t.light
}
