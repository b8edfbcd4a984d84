package drive

import (
	"context"
	"net"
	"testing"
)

// BenchmarkPingPong measures the thread's per-reply path: pairs of
// workers on one thread, each pair the two ends of a loopback TCP
// connection, pass a small message back and forth. Every round trip is a
// write, a read that would block, a switch to the other worker and, when
// none is ready, one epoll wait.
func BenchmarkPingPong(b *testing.B) {
	for _, pairs := range []int{1, 8} {
		b.Run(map[int]string{1: "pairs=1", 8: "pairs=8"}[pairs], func(b *testing.B) {
			th, err := newTestThread()
			if err != nil {
				b.Fatal(err)
			}
			defer th.Close()
			ctx := WithThread(context.Background(), th)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer ln.Close()
			trips := b.N / pairs
			if trips == 0 {
				trips = 1
			}
			for range pairs {
				var d net.Dialer
				nc, err := d.DialContext(ctx, "tcp", ln.Addr().String())
				if err != nil {
					b.Fatal(err)
				}
				sc, err := ln.Accept()
				if err != nil {
					b.Fatal(err)
				}
				a, err := Adopt(ctx, nc)
				if err != nil {
					b.Fatal(err)
				}
				z, err := Adopt(ctx, sc)
				if err != nil {
					b.Fatal(err)
				}
				defer a.Close()
				defer z.Close()
				th.Go(func() {
					buf := make([]byte, 64)
					for range trips {
						if _, err := a.Write(buf[:32]); err != nil {
							b.Error(err)
							return
						}
						if _, err := a.Read(buf); err != nil {
							b.Error(err)
							return
						}
					}
				})
				th.Go(func() {
					buf := make([]byte, 64)
					for range trips {
						n, err := z.Read(buf)
						if err != nil {
							b.Error(err)
							return
						}
						if _, err := z.Write(buf[:n]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.ReportAllocs()
			b.ResetTimer()
			th.Run()
		})
	}
}
