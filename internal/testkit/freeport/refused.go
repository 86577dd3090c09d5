package freeport

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// Refused is a loopback address ("127.0.0.1:PORT") whose connections are
// refused for as long as the test runs. A port merely closed (listening
// on :0, then closing) is free for the next listener, and a server another
// part of the test starts may be handed it: a connection meant to be
// refused then reaches that server. Here a socket stays bound to the port
// without listening, so the kernel hands the port to no one else and
// answers every connection to it with a reset.
func Refused(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("a socket bound to 127.0.0.1 has the address %T", sa)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(in.Port))
}
