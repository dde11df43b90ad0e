package config

// maxNesting bounds how deeply a config's arrays and objects may nest. The
// JSONC parser recurses once per level, so an absurd depth would exhaust
// the stack; no real config comes near it.
const maxNesting = 1000

// tooDeep returns the offset of the first bracket that opens level
// maxNesting+1 of text, skipping strings and comments, or -1 when the
// text stays within the bound.
func tooDeep(text []byte) int {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 >= len(text) {
				continue
			}
			switch text[i+1] {
			case '/':
				for i += 2; i < len(text) && text[i] != '\n'; i++ {
				}
			case '*':
				for i += 2; i+1 < len(text) && !(text[i] == '*' && text[i+1] == '/'); i++ {
				}
				i++
			}
		case '[', '{':
			depth++
			if depth > maxNesting {
				return i
			}
		case ']', '}':
			depth--
		}
	}
	return -1
}
