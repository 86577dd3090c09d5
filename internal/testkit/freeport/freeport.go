// Package freeport gives tests a loopback address to hand a server
// process before it binds it.
package freeport

import (
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
)

// Ports are drawn from below the range the kernel hands out for outgoing
// connections (32768 and up on Linux, 49152 and up elsewhere). A port the
// kernel chose (listening on :0, then closing) is in that range, so an
// outgoing connection of another test may take it before the server binds
// it, and the server fails to start on a busy address.
const (
	lowest = 20000
	count  = 12000
)

// Addr is a loopback address ("127.0.0.1:PORT") nothing listens on now.
func Addr(t testing.TB) string {
	t.Helper()
	for range 100 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(lowest+rand.IntN(count)))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		if err := ln.Close(); err != nil {
			t.Fatal(err)
		}
		return addr
	}
	t.Fatalf("no free loopback port among 100 tries in %d–%d", lowest, lowest+count-1)
	return ""
}
