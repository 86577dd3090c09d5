package dbcli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/subscription"
	"github.com/qinglong/qinglong/internal/core/task"
)

// rescopeSubscriptions publishes again, connected to url as the
// migration has just been, every subscription's pull task an earlier
// release wrote with the credential helper git asks for every host
// (subscription.Rescope), and says which on out: the migrate is a
// cluster's upgrade step, done before any replica of the new build
// starts, so no worker pulls with such a script after it. Nothing it
// cannot publish fails the migrate, which is done: it says which and
// what scopes them instead.
func rescopeSubscriptions(ctx context.Context, url string, out io.Writer) {
	admin, err := pgstore.OpenAdmin(ctx, url)
	if err != nil {
		fmt.Fprintf(out, "subscriptions: not checked for a credential helper answering every host (%s): apply each one's ql repo line again to scope it\n", pgstore.ForCommand(err))
		return
	}
	defer admin.Close()
	svc := catalog.Service{Store: admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	done, err := subscription.Rescope(ctx, admin, svc, subscription.RescopeActor, false)
	if len(done) > 0 {
		names := make([]string, len(done))
		for i, d := range done {
			names[i] = d.Project + "/" + d.Name
		}
		fmt.Fprintf(out, "subscriptions: published the pull tasks of %s again with the credential helper scoped to each one's own scheme, host and port\n", strings.Join(names, ", "))
	}
	if err != nil {
		fmt.Fprintf(out, "subscriptions: some pull tasks still give git their token for every host (%s): apply each one's ql repo line again to scope it\n", pgstore.ForCommand(err))
	}
}
