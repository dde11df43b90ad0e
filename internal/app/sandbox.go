package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/sandbox"
	"github.com/codeloop/codeloop/internal/tool"
)

// confinement builds the bash tool's sandbox from the config's sandbox key
// and the mode a flag asks for (which wins when not empty). It returns nil
// when commands run unconfined.
func confinement(cfg config.Sandbox, flagMode, worktree string) (*tool.Confinement, error) {
	modeName := cfg.Mode
	if flagMode != "" {
		modeName = flagMode
	}
	if modeName == "" {
		return nil, nil
	}
	mode, err := sandbox.ParseMode(modeName)
	if err != nil {
		return nil, err
	}
	if mode == sandbox.ModeOff {
		return nil, nil
	}
	fallback := cfg.Fallback
	switch fallback {
	case "":
		fallback = tool.SandboxFallbackAsk
	case tool.SandboxFallbackAsk, tool.SandboxFallbackDeny:
	default:
		return nil, fmt.Errorf("sandbox.fallback %q: want ask or deny", fallback)
	}
	var writable []string
	for _, w := range cfg.Writable {
		if !filepath.IsAbs(w) {
			w = filepath.Join(worktree, w)
		}
		writable = append(writable, filepath.Clean(w))
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding codeloop's executable for the sandbox helper: %w", err)
	}
	return &tool.Confinement{
		Sandbox:   sandbox.New(exe),
		Mode:      mode,
		Network:   cfg.Network != nil && *cfg.Network,
		Writable:  writable,
		AutoAllow: cfg.AutoAllow != nil && *cfg.AutoAllow,
		Fallback:  fallback,
	}, nil
}
