// Command ql is the full QingLong binary: single-node profiles on SQLite and
// the cluster profile on PostgreSQL.
package main

import "github.com/qinglong/qinglong/internal/cli"

func main() {
	cli.Run(cli.Options{
		Binary: "ql",
	})
}
