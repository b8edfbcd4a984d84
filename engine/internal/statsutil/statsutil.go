// Package statsutil is what the engines' server-statistics sources share:
// converting the values engine.Conn.QueryRows hands out (int64, float64,
// string, []byte, nil; drivers return numbers as text or as numbers) and
// telling a loopback address from a remote one.
package statsutil

import (
	"net"
	"strconv"
	"strings"
)

// IsLoopback tells whether host, a client or server address as the
// server reports it ("127.0.0.1", "127.0.0.1:40512", "localhost", "::1"),
// is this host's loopback. An empty host (a Unix socket) is local too.
func IsLoopback(host string) bool {
	if host == "" {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 && net.ParseIP(host) == nil {
		host = host[:i] // "::1:40512": an IPv6 client and its port
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Int64 converts v to an integer; false for NULL or a value that is not
// one.
func Int64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int:
		return int64(x), true
	case float64:
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	case []byte:
		n, err := strconv.ParseInt(string(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// Float64 converts v to a float; false for NULL or a value that is not a
// number.
func Float64(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	case []byte:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

// String converts v to a string ("" for NULL).
func String(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}
