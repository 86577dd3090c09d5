// Command ql-worker is the cluster worker alone: `ql worker` without the
// rest of ql. It links no PostgreSQL driver and no server code (its
// dependency closure is audited by internal/repocheck's tests), so it is
// small enough for the machines that run commands. Its one subcommand,
// secrets, edits the worker's secrets file, so a worker host needs no
// other binary for that.
package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/worker/workercli"
)

func main() { cli.RunSingle(command()) }

func command() *cobra.Command {
	c := workercli.Command()
	c.Use = "ql-worker"
	c.Example = strings.ReplaceAll(c.Example, "ql worker", "ql-worker")
	c.AddCommand(cli.SecretsFileCommand(c.Use))
	return c
}
