//go:build !unix

package cli

import "os"

// terminalColumns cannot ask the terminal here: it takes one to be 80
// columns wide, as the bars do.
func terminalColumns(*os.File) int { return 80 }
