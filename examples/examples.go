// Package examples embeds the sample definitions file, so `ql serve
// --example` works from any directory.
package examples

import _ "embed"

// SampleFile is the sample's path in the repository, for messages.
const SampleFile = "examples/sample.yaml"

// Sample is examples/sample.yaml.
//
//go:embed sample.yaml
var Sample []byte
