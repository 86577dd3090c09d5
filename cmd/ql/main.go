// Command ql is the full QingLong binary: single-node profiles on SQLite and
// the cluster profile on PostgreSQL.
package main

import (
	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/cli"
	"github.com/qinglong/qinglong/internal/clustercli"
	"github.com/qinglong/qinglong/internal/clusterserve"
	"github.com/qinglong/qinglong/internal/localcli"
)

func main() { cli.Run(options()) }

func options() cli.Options {
	opts := localcli.Options("ql")
	opts.OpenPostgres = clusterserve.Open
	opts.Serve[cli.ProfileCluster] = clusterserve.Serve
	opts.Extra = []*cobra.Command{clustercli.DBCommand()}
	return opts
}
