package server

// What the external tests look at inside the package.
var (
	DefOf     = defOf
	KindNames = kindNames
)

// KnownSettings is d.knownSettings.
func KnownSettings(d *KindDef, out []byte) map[string]bool { return d.knownSettings(out) }

// Known is d.known.
func Known(d *KindDef) bool { return d.known() }

// LabelName is labelName.
var LabelName = labelName
