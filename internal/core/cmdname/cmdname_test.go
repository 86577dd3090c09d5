package cmdname_test

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/cmdname"
	"github.com/qinglong/qinglong/internal/single/singlecli"
)

// The commands the console and the API rename for the binary serving them
// are exactly the commands ql-edge has (cobra's own help and completion
// aside): a command added to the shared tree and named by a page or a
// refusal would otherwise keep `ql` on ql-edge, and a command listed here that ql-edge
// lacks would be renamed into one its user cannot run.
func TestTheCommandsRenamedForTheBinaryAreExactlyThoseQlEdgeHas(t *testing.T) {
	t.Parallel()
	var have []string
	for _, c := range cli.NewRoot(singlecli.Options("ql-edge")).Commands() {
		if name := c.Name(); name != "help" && name != "completion" {
			have = append(have, name)
		}
	}
	slices.Sort(have)
	want := slices.Sorted(slices.Values(cmdname.Shared))
	if !slices.Equal(have, want) {
		t.Fatalf("ql-edge has the commands %v, messages rename %v: keep Shared (cmdname.go) the tree's", have, want)
	}
}
