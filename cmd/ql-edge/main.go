// Command ql-edge is the edge binary: the single-node profiles on embedded
// SQLite, without PostgreSQL, row leases or the cluster lifecycle (its
// dependency closure is audited by internal/repocheck's tests). It serves
// the edge profile unless told otherwise.
package main

import (
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/single/singlecli"
)

func main() { cli.Run(options()) }

func options() cli.Options {
	opts := singlecli.Options("ql-edge")
	opts.DefaultProfile = cli.ProfileEdge
	opts.OpenSQLite = singlecli.OpenEdgeSQLite
	opts.Vacuum = singlecli.EdgeVacuum
	return opts
}
