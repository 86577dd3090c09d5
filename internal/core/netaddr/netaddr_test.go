package netaddr

import "testing"

// Only localhost and loopback addresses name this machine alone; a LAN
// address, a public name, a wildcard or an empty host do not.
func TestOnlyLocalhostAndLoopbackAddressesAreLoopbackHosts(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "127.0.0.1": true, "127.8.9.10": true, "::1": true, "[::1]": true,
		"": false, "0.0.0.0": false, "::": false, "[::]": false, "192.168.1.2": false, "10.0.0.1": false,
		"example.com": false, "localhost.example.com": false, "[::ffff:192.168.1.2]": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
