// Command ql is the full QingLong binary: single-node profiles on SQLite and
// the cluster profile on PostgreSQL.
package main

import (
	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/cluster/dbcli"
	"github.com/qinglong/qinglong/internal/cluster/replica"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/single/singlecli"
	"github.com/qinglong/qinglong/internal/worker/workercli"
)

func main() { cli.Run(options()) }

func options() cli.Options {
	opts := singlecli.Options("ql")
	opts.OpenPostgres = replica.Open
	opts.DatabaseWarnings = replica.DatabaseWarnings
	opts.Profiles[cli.ProfileCluster] = replica.Profile()
	opts.Extra = []*cobra.Command{dbcli.DBCommand(), dbcli.WorkersCommand(), workercli.Command()}
	return opts
}
