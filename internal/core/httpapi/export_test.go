package httpapi

// Authed is authed for the package's external tests.
var Authed = authed
