// Package sniff tells which database protocol a server speaks, for the
// engines' connection errors: a URL of one engine pointed at a server of
// another fails with a driver message that says nothing useful (or waits
// for the connect timeout), and a short look at the server names what is
// probably there.
package sniff

import (
	"context"
	"net"
	"time"
)

// Protocol is the protocol a server was seen to speak.
type Protocol int

const (
	// Unknown: nothing recognisable came back (a silent or closed port,
	// or a protocol this package does not know).
	Unknown Protocol = iota
	// MySQL: the server spoke first with a MySQL/MariaDB handshake
	// (protocol version 10) or error packet.
	MySQL
	// PostgreSQL: the server said nothing first and answered a
	// PostgreSQL SSLRequest with the one byte 'S' or 'N' (PostgreSQL,
	// PgBouncer).
	PostgreSQL
)

// Name is the protocol's name as messages give it.
func (p Protocol) Name() string {
	switch p {
	case MySQL:
		return "MySQL/MariaDB"
	case PostgreSQL:
		return "PostgreSQL"
	}
	return "unknown"
}

// sslRequest is PostgreSQL's SSLRequest message: length 8, code 80877103.
var sslRequest = []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}

// Probe opens one TCP connection to addr and tells which protocol the
// server speaks: it waits up to wait for a greeting (MySQL speaks first);
// when none comes it sends a PostgreSQL SSLRequest and waits up to wait
// for its one-byte answer. It takes at most about twice wait, less when
// ctx ends first, and sends nothing a MySQL server reads as a login.
func Probe(ctx context.Context, addr string, wait time.Duration) Protocol {
	d := net.Dialer{Timeout: wait}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return Unknown
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()

	buf := make([]byte, 64)
	c.SetReadDeadline(time.Now().Add(wait))
	n, err := c.Read(buf)
	if n > 0 {
		return greeting(buf[:n])
	}
	if ne, ok := err.(net.Error); !ok || !ne.Timeout() || ctx.Err() != nil {
		return Unknown // closed without a word, or ctx ended
	}
	c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write(sslRequest); err != nil {
		return Unknown
	}
	n, _ = c.Read(buf)
	if n == 1 && (buf[0] == 'S' || buf[0] == 'N') {
		return PostgreSQL
	}
	return Unknown
}

// greeting recognises the first packet of a MySQL server: a 3-byte
// length, sequence 0, then protocol version 10 or an error packet (0xff).
func greeting(b []byte) Protocol {
	if len(b) >= 5 && b[3] == 0 && (b[4] == 10 || b[4] == 0xff) {
		n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
		if n > 0 {
			return MySQL
		}
	}
	return Unknown
}
