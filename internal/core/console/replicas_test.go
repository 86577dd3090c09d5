package console

import (
	"context"
	"html"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// The overview names each replica first by the --replica-id its operator
// gave it, which the logs, the metrics and the claims carry; its host and
// pid follow, as two replicas may share a host.
func TestTheOverviewNamesEachReplicaByItsReplicaIDFirst(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, func(cfg *Config) {
		cfg.Replicas = func(context.Context) ([]Replica, error) {
			return []Replica{{ID: "replica-east", Host: "node-7", PID: 4242, Version: "1.0", Live: true}}, nil
		}
	})
	for _, l := range []string{"en", "zh"} {
		page := html.UnescapeString(site.do(apitoken.Read, "/?lang="+l, nil).Body.String())
		_, table, _ := strings.Cut(page, `id="replicas"`)
		head, body, _ := strings.Cut(table, "<tbody>")
		if !strings.Contains(head, "<th>"+tr(l, "replica")) {
			t.Errorf("%s: the replicas table's first column is not the replica:\n%s", l, head)
		}
		row, _, _ := strings.Cut(body, "</tr>")
		id, host := strings.Index(row, ">replica-east<"), strings.Index(row, ">node-7<")
		if id < 0 || host < 0 || id > host || !strings.Contains(row, ">4242<") {
			t.Errorf("%s: the replica row does not give its id first, then its host and pid:\n%s", l, row)
		}
	}
}
