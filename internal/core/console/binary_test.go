package console_test

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/single/singlecli"
)

// The commands a console renames for the binary serving it are exactly
// the commands ql-edge has (cobra's own help and completion aside): a
// command added to the shared tree and named by a page would otherwise
// keep `ql` on ql-edge's console, and a command listed here that ql-edge
// lacks would be renamed into one its user cannot run.
func TestTheConsoleRenamesExactlyTheCommandsQlEdgeHas(t *testing.T) {
	t.Parallel()
	var have []string
	for _, c := range cli.NewRoot(singlecli.Options("ql-edge")).Commands() {
		if name := c.Name(); name != "help" && name != "completion" {
			have = append(have, name)
		}
	}
	slices.Sort(have)
	want := slices.Sorted(slices.Values(console.SharedCommands))
	if !slices.Equal(have, want) {
		t.Fatalf("ql-edge has the commands %v, the console renames %v: keep sharedCommands (binary.go) the tree's", have, want)
	}
}
