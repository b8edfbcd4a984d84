// Package markdown holds what the Markdown renderings share.
package markdown

import "strings"

var escaper = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;",
	"*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`)

// Escape keeps user-supplied text (labels, file names, settings) from
// breaking a table cell or turning into markup or HTML.
func Escape(s string) string { return escaper.Replace(s) }
