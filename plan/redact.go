package plan

import (
	"github.com/dbarena/dbarena/engine"
)

// The plan's redaction is engine's policy (engine.RedactURL,
// engine.URLSecrets, engine.Scrub) applied to the plan's target URLs.

// redactURL is raw as it may be shown: engine.RedactURL.
func redactURL(raw string) string { return engine.RedactURL(raw) }

// scrubPassword replaces every secret of the URL raw in msg by "xxxxx".
func scrubPassword(msg, raw string) string {
	return engine.Scrub(msg, engine.URLSecrets(raw)...)
}

// redactSource is the plan file with every target URL's secrets replaced
// by "xxxxx", to be copied into the results directory.
func redactSource(data []byte, targets []Target) []byte {
	var secrets []string
	for _, t := range targets {
		secrets = append(secrets, engine.URLSecrets(t.URL)...)
	}
	return []byte(engine.Scrub(string(data), secrets...))
}
