package httpapi

import "fmt"

// CodePlainHTTPExposed is the diagnostic code of the warning that the API
// serves plain HTTP (--insecure-http) on an address other machines reach;
// every profile logs it at start.
const CodePlainHTTPExposed = "serve.http_plain_exposed"

// PlainHTTPNote is what a server whose API listens on addr, over TLS when
// secure, warns at its start when it serves plain HTTP to other machines,
// "" otherwise: --insecure-http is meant for a network one trusts, and
// the warning keeps that choice visible in the log.
func PlainHTTPNote(addr string, secure bool) string {
	if secure || IsLoopback(addr) {
		return ""
	}
	return fmt.Sprintf("--http-addr %s serves plain HTTP to other machines (--insecure-http): API tokens, console passwords and session cookies "+
		"cross the network in clear text; give --tls-cert and --tls-key, or bind a loopback address (e.g. %s) behind a TLS-terminating proxy", addr, DefaultAddr)
}
