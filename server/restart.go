package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/user"
	"strconv"
	"time"
)

// Restart stops the server with its fast clean shutdown (as Stop does,
// every process that serves it) and starts its program again as it ran:
// the same command, port, directory, user and data. Whatever the server
// kept in memory (shared buffers, the buffer pool) is gone afterwards;
// the operating system's page cache is not its to drop. It returns once
// the new process listens on the server's port, which may be before it
// accepts logins (PostgreSQL's recovery): callers wait for their own
// connection. A server in front of another (PgBouncer) is not restarted:
// its backend holds the data.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopped:
		return fmt.Errorf("%s %s: restarting a stopped server", s.rec.Kind, s.rec.Name)
	case s.InFront():
		return fmt.Errorf("%s %s: a server in front of another is not restarted (restart its backend %s)", s.rec.Kind, s.rec.Name, s.BackendName())
	case len(s.rec.Command) == 0:
		return fmt.Errorf("%s %s: its record has no command to start again (started by an older dbarena)", s.rec.Kind, s.rec.Name)
	}
	acct, err := accountOf(s.rec.User)
	if err != nil {
		return err
	}
	def := defOf(s.rec.Kind)
	if err := s.stopServing(ctx, def, 30*time.Second); err != nil {
		return fmt.Errorf("restarting %s %s: %w", s.rec.Kind, s.rec.Name, err)
	}
	from := fileSize(s.LogFile())
	p, err := spawn(acct, s.rec.RunDir, s.LogFile(), childEnv(s.rec.BinDir), s.rec.Command[0], s.rec.Command[1:]...)
	if err != nil {
		return fmt.Errorf("restarting %s %s: %w", s.rec.Kind, s.rec.Name, err)
	}
	s.proc, s.rec.PID, s.rec.StartTicks = p, p.pid, p.ticks
	if err := s.save(); err != nil {
		return err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.rec.Port))
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		if !p.alive() {
			return &StartError{Kind: s.rec.Kind, Name: s.rec.Name, Log: readFrom(s.LogFile(), from), Err: errors.New("its process ended while restarting")}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted while restarting %s %s: %w", s.rec.Kind, s.rec.Name, ctx.Err())
		}
		if time.Now().After(deadline) {
			return &StartError{Kind: s.rec.Kind, Name: s.rec.Name, Log: s.LogTail(20), Err: fmt.Errorf("not listening on port %d a minute after a restart", s.rec.Port)}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// accountOf is the account the server was recorded to run as.
func accountOf(name string) (account, error) {
	me := caller()
	if name == "" || name == me.name {
		return me, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return account{}, fmt.Errorf("the server's user %s: %w", name, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return account{}, fmt.Errorf("user %s has uid %q, gid %q: not numbers", name, u.Uid, u.Gid)
	}
	return account{name: name, uid: uid, gid: gid, other: true}, nil
}
