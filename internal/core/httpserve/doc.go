// Package httpserve starts the HTTP servers of every profile: the
// single-node health server and the cluster replica's API server share its
// connection limits (against slow or idle clients), its response headers
// and its log of connection errors (ConnectionErrorLog).
// It holds no handler of its own, so a binary linking it links no API code.
package httpserve
