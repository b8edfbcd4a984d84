package result

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
)

// Identity names the shard a result file holds: the run (one invocation
// of dbarena, a random id of its own), the host and process that ran it,
// and its place among the shards of a run. Merge refuses a shard given
// twice by it.
type Identity struct {
	// RunID is random, made once per result file.
	RunID string `json:"run_id"`
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	// Index is the shard's number from 0 among Count shards (a run of
	// one process is shard 0 of 1).
	Index int `json:"index"`
	Count int `json:"count"`
}

// NewIdentity is the identity of a result file this process writes: a new
// run id, this host and process, shard 0 of 1.
func NewIdentity() *Identity {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	host, _ := os.Hostname()
	return &Identity{RunID: hex.EncodeToString(b), Host: host, PID: os.Getpid(), Count: 1}
}

func (id *Identity) String() string {
	return fmt.Sprintf("run id %s, host %s, pid %d, shard %d of %d", id.RunID, id.Host, id.PID, id.Index, id.Count)
}
