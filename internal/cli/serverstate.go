package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// serverState is what codeloop serve writes for attach: where it listens
// and its token. The file is the owner's alone (0600 in a 0700
// directory) and is removed when the server stops.
type serverState struct {
	URL       string `json:"url"`
	Token     string `json:"token"`
	PID       int    `json:"pid"`
	Directory string `json:"directory"`
	Started   int64  `json:"started"` // Unix milliseconds
}

// serverStateDir holds one file per running server.
func serverStateDir(stateDir string) string { return filepath.Join(stateDir, "server") }

// writeServerState writes st to the state directory and returns its path.
func writeServerState(stateDir string, st serverState) (string, error) {
	dir := serverStateDir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making the server state directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, strconv.Itoa(st.PID)+".json")
	tmp, err := os.CreateTemp(dir, ".state-*")
	if err != nil {
		return "", fmt.Errorf("writing the server state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing the server state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("writing the server state: %w", err)
	}
	return path, nil
}

// runningServers reads the state of the servers that are still running,
// newest first, and removes the files of those that are not.
func runningServers(stateDir string) []serverState {
	dir := serverStateDir(stateDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []serverState
	for _, ent := range entries {
		if !strings.HasSuffix(ent.Name(), ".json") || strings.HasPrefix(ent.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, ent.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var st serverState
		if json.Unmarshal(data, &st) != nil || st.URL == "" {
			continue
		}
		if !processAlive(st.PID) {
			_ = os.Remove(path)
			continue
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b serverState) int { return int(b.Started - a.Started) })
	return out
}

// pickServer chooses the server attach connects to: the one given by url
// when there is one; otherwise the one serving dir (or a directory above
// it), else the only one running.
func pickServer(servers []serverState, url, dir string) (serverState, error) {
	if url != "" {
		for _, s := range servers {
			if strings.TrimRight(s.URL, "/") == strings.TrimRight(url, "/") {
				return s, nil
			}
		}
		return serverState{URL: url}, nil
	}
	if len(servers) == 0 {
		return serverState{}, errors.New("no codeloop server is running for this user: start one with codeloop serve, or give its URL")
	}
	var best *serverState
	for i, s := range servers {
		if s.Directory == "" || !within(dir, s.Directory) {
			continue
		}
		if best == nil || len(s.Directory) > len(best.Directory) {
			best = &servers[i]
		}
	}
	if best != nil {
		return *best, nil
	}
	if len(servers) == 1 {
		return servers[0], nil
	}
	var b strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&b, "\n  %s  %s", s.URL, s.Directory)
	}
	return serverState{}, fmt.Errorf("several codeloop servers are running and none serves this directory; name one:%s", b.String())
}

// within reports whether dir is root or lies below it.
func within(dir, root string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
