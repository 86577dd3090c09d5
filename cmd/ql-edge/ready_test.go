package main

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// ql-edge's ready line (serve.ready) names the version and commit of the
// binary serving, as `ql-edge version` prints them: after the binary is
// replaced, its log confirms the new one started.
func TestTheEdgeReadyLineNamesTheVersionAndCommitServing(t *testing.T) {
	t.Parallel()
	stderr := serveUntil(t, "serve.ready", func(s string) bool { return strings.Contains(s, "code=serve.ready") }, "--data-dir", t.TempDir())
	var ready string
	for line := range strings.SplitSeq(stderr, "\n") {
		if strings.Contains(line, "code=serve.ready") {
			ready = line
		}
	}
	for _, want := range []string{" version=" + cli.Version, " commit=" + cli.Commit()} {
		if !strings.Contains(ready, want) {
			t.Errorf("the ready line %q: want %q", ready, want)
		}
	}
}
