package tool

// AnalysisShell is the shell whose syntax the permission analysis reads a
// bash tool command in: the configured one, else the platform's default
// (empty for bash).
func AnalysisShell(configured string) string {
	if configured != "" {
		return configured
	}
	return analysisShell(platformShell())
}
