// Package view holds the JSON shapes of runs, triggers and projects. The
// HTTP API and the CLI's -o json both print these, so a script reads one
// shape (camelCase field names) whichever it asks, and the API's client
// reads the API's answers through them; and the headers of the one answer
// that is not JSON, an attempt's output.
//
// A field of a shape the API's OpenAPI description gives a schema to
// carries a doc tag beside its json tag: what it is, its unit, when it is
// absent and which profile alone gives it. The description reads the tag
// as the field's description, and its test fails for a field without one,
// so a field is documented where it is added. A field whose words speak
// of the cluster, and that the edge binary answers too, carries an edgedoc
// tag as well: its words in the edge binary's description, which names
// nothing of the cluster and leaves out the fields only the cluster gives.
package view
