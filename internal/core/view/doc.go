// Package view holds the JSON shapes of runs, triggers and projects. The
// HTTP API and the CLI's -o json both print these, so a script reads one
// shape (camelCase field names) whichever it asks, and the API's client
// reads the API's answers through them; and the headers of the one answer
// that is not JSON, an attempt's output.
package view
