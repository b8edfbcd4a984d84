package script

import "io"

// SetDebugOutput sends w's debug() output to out.
func SetDebugOutput(w *Script, out io.Writer) { w.debug = out }
