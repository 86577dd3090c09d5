// Package httpserve starts the HTTP servers of every profile: the
// single-node health server and the cluster replica's API server share its
// connection limits (against slow or idle clients) and its response headers.
// It holds no handler of its own, so a binary linking it links no API code.
package httpserve
