package plan

import (
	"github.com/dbarena/dbarena/target"
)

// The plan's redaction is dbarena's policy (target.RedactURL,
// target.URLSecrets, target.Scrub) applied to the plan's target URLs.

// redactURL is raw as it may be shown: target.RedactURL.
func redactURL(raw string) string { return target.RedactURL(raw) }

// scrubPassword replaces every secret of the URL raw in msg by "xxxxx".
func scrubPassword(msg, raw string) string {
	return target.Scrub(msg, target.URLSecrets(raw)...)
}

// redactSource is the plan file with every target URL's secrets replaced
// by "xxxxx", to be copied into the results directory.
func redactSource(data []byte, targets []Target) []byte {
	var secrets []string
	for _, t := range targets {
		secrets = append(secrets, target.URLSecrets(t.URL)...)
	}
	return []byte(target.Scrub(string(data), secrets...))
}
