// Package hostinfo describes the machine dbarena runs on, for result files.
package hostinfo

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/result"
)

// Read returns the client host's description. Fields that cannot be read
// stay empty rather than failing the run.
func Read() result.Client {
	c := result.Client{
		Cores:     runtime.NumCPU(),
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS + "/" + runtime.GOARCH,
	}
	c.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		c.OS += " " + strings.TrimSpace(string(b))
	}
	c.CPUModel = procField("/proc/cpuinfo", "model name")
	if mem := procField("/proc/meminfo", "MemTotal"); mem != "" {
		// "24579388 kB"
		if f := strings.Fields(mem); len(f) > 0 {
			if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				c.MemoryBytes = kb * 1024
			}
		}
	}
	return c
}

// procField returns the value of the first "key: value" line of a /proc
// file, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
