package app

import (
	"github.com/codeloop/codeloop/internal/tool"
)

// SecretFiles returns the project's secret files: the defaults, then the
// secret_files entries of every config layer in merge order. The user's
// own layers may exempt files with "!pattern"; config.Load has already
// dropped such entries from the project's layers, which may only add.
func SecretFiles(merged []string) (*tool.SecretFiles, error) {
	return tool.NewSecretFiles(tool.SecretPatterns(merged, nil))
}
