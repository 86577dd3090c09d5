package httpserve

import "crypto/tls"

// tls12Suites are the TLS 1.2 cipher suites every QingLong listener and the
// worker's client offer: ECDHE key exchange (forward secrecy: a key stolen
// later does not decrypt recorded traffic) with an AEAD cipher. Go's
// default list also accepts the CBC-SHA suites, whose MAC-then-encrypt
// construction padding-oracle attacks (Lucky Thirteen) target; no client
// QingLong serves needs them. TLS 1.3 suites are not configurable and are
// all AEAD.
var tls12Suites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// TLSConfig is the TLS configuration of every QingLong connection, server
// or client: TLS 1.2 at least, and in TLS 1.2 only tls12Suites. The
// caller adds its certificates or its trusted authorities.
func TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, CipherSuites: tls12Suites}
}
