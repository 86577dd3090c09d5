// Command ql-edge is the edge binary: the single-node profiles on embedded
// SQLite, without PostgreSQL, row leases or the cluster lifecycle (its
// dependency closure is audited by internal/localserve's tests).
package main

import (
	"github.com/qinglong/qinglong/internal/cli"
	"github.com/qinglong/qinglong/internal/localcli"
)

func main() {
	cli.Run(localcli.Options("ql-edge"))
}
