package sniff

import (
	"context"
	"net"
	"testing"
	"time"
)

// serve accepts connections on a loopback port and hands each to fn.
func serve(t *testing.T, fn func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); fn(c) }()
		}
	}()
	return ln.Addr().String()
}

func TestProbe(t *testing.T) {
	mysqlGreeting := []byte{0x0a, 0, 0, 0, 10, '1', '1', '.', '4', 0}
	for _, tc := range []struct {
		name string
		fn   func(net.Conn)
		want Protocol
	}{
		{"mysql greets first", func(c net.Conn) { c.Write(mysqlGreeting); c.Read(make([]byte, 1)) }, MySQL},
		{"mysql error packet", func(c net.Conn) { c.Write([]byte{0x05, 0, 0, 0, 0xff, 0x6a, 0x04, 'x', 'y'}) }, MySQL},
		{"postgres answers an SSLRequest", func(c net.Conn) {
			b := make([]byte, 8)
			if n, _ := c.Read(b); n == 8 {
				c.Write([]byte{'N'})
			}
			c.Read(b)
		}, PostgreSQL},
		{"silent", func(c net.Conn) { c.Read(make([]byte, 64)); time.Sleep(time.Second) }, Unknown},
		{"closes at once", func(net.Conn) {}, Unknown},
		{"other greeting", func(c net.Conn) { c.Write([]byte("+OK hello\r\n")); c.Read(make([]byte, 1)) }, Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := serve(t, tc.fn)
			if got := Probe(context.Background(), addr, 200*time.Millisecond); got != tc.want {
				t.Errorf("Probe = %s, want %s", got.Name(), tc.want.Name())
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		if got := Probe(context.Background(), addr, 200*time.Millisecond); got != Unknown {
			t.Errorf("Probe = %s", got.Name())
		}
	})
}
