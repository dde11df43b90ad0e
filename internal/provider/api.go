package provider

// API returns the AI SDK package whose API model m of provider p speaks
// and the endpoint it is called at as configured (empty for the package's
// default), with no variable expanded.
func (p *Info) API(m *Model) (npm, url string) {
	npm, url = p.NPM, p.BaseURL
	if m.npm != "" {
		npm = m.npm
	}
	if m.api != "" && (p.cred == nil || p.cred.options.BaseURL == "") {
		url = m.api
	}
	return npm, url
}
