package app

import (
	"context"
	"fmt"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/tool"
)

// secretFiles returns the project's secret files: the defaults, the
// secret_files entries of the user's own config layers, which may exempt
// files with "!pattern", and those of the project's layers, which may only
// add (see tool.SecretPatterns). The user's entries are those of the
// config loaded without the project's files; merged holds every layer's.
func secretFiles(ctx context.Context, opts Options, dir string, merged []string) (*tool.SecretFiles, error) {
	var user []string
	if len(merged) > 0 {
		getenv := func(k string) string {
			if k == "CODELOOP_DISABLE_PROJECT_CONFIG" {
				return "1"
			}
			return opts.Getenv(k)
		}
		own, err := config.Load(ctx, config.LoadOptions{Cwd: dir, Getenv: getenv, Dirs: opts.Dirs})
		if err != nil {
			return nil, fmt.Errorf("reading the user's secret_files: %w", err)
		}
		user = own.Config.SecretFiles
	}
	return tool.NewSecretFiles(tool.SecretPatterns(user, merged))
}
