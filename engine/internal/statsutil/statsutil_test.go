package statsutil

import "testing"

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"":                true, // Unix socket
		"localhost":       true,
		"127.0.0.1":       true,
		"127.0.0.1:33822": true,
		"127.1.2.3":       true,
		"::1":             true,
		"[::1]:5432":      true,
		"::1:40512":       true,
		"localhost:40512": true,
		"10.0.0.5":        false,
		"10.0.0.5:40512":  false,
		"db.example.com":  false,
		"172.17.0.1:5000": false,
		"fe80::1":         false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestValues(t *testing.T) {
	for _, tc := range []struct {
		v   any
		i   int64
		iok bool
		f   float64
		fok bool
		s   string
	}{
		{int64(42), 42, true, 42, true, "42"},
		{float64(2.5), 2, true, 2.5, true, "2.5"},
		{"17", 17, true, 17, true, "17"},
		{[]byte("1.5"), 0, false, 1.5, true, "1.5"},
		{nil, 0, false, 0, false, ""},
	} {
		i, iok := Int64(tc.v)
		f, fok := Float64(tc.v)
		if i != tc.i || iok != tc.iok || f != tc.f || fok != tc.fok || String(tc.v) != tc.s {
			t.Errorf("%#v: Int64 %d %v, Float64 %v %v, String %q; want %d %v, %v %v, %q",
				tc.v, i, iok, f, fok, String(tc.v), tc.i, tc.iok, tc.f, tc.fok, tc.s)
		}
	}
}
