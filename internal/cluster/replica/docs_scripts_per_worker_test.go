package replica

import (
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// The example of docs/workers.md's "Scripts on each worker" applies as
// written and does what the text says: with its two workers (labels as
// the text creates them), each pull task's Run is granted only to its own
// worker, even when the other pulls first with every Run queued.
func TestTheDocumentedPullPerWorkerRunsOnlyOnItsWorker(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "workers.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n### Scripts on each worker\n")
	if !ok {
		t.Fatal(`docs/workers.md has no "Scripts on each worker" section`)
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	doc, _, closed := strings.Cut(block, "```\n")
	if !ok || !closed || !strings.Contains(doc, "placement: {labels: {host: build-01}}") {
		t.Fatalf("the section's yaml example is not where the test looks for it:\n%.600s", section)
	}
	env := clustertest.New(t)
	env.Apply(t, doc)
	p := serveInProcess(t, metricsReplicaFlags(env, "replica-docs-scripts"))
	p.awaitReady(t)
	rt := env.Runtime(t, "test-docs-workers", pgstore.DefaultLease)
	workers := map[string]*fakeWorker{}
	for _, name := range []string{"build-01", "build-02"} {
		id, reg := env.ConnectWorker(t, rt, name, map[string]string{"host": name, "scripts": "repo"}, 4)
		workers[name] = &fakeWorker{rt: rt, id: id, session: reg.SessionID}
	}
	// Each pull is a fresh offer: its token is never sent again.
	token := func() string {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	pull := func(name string) []string {
		w := workers[name]
		reply, err := rt.PullGrants(t.Context(), w.id, workerproto.PullRequest{SessionID: w.session, OfferID: ids.New(), Token: token(), Max: 4}, pgstore.WorkerSettings{})
		if err != nil {
			t.Fatal(err)
		}
		var tasks []string
		for _, g := range reply.Grants {
			tasks = append(tasks, g.Task)
		}
		return tasks
	}
	// Each round queues a Run of every trigger, then one worker pulls
	// alone with all of them queued: it takes its own pull and never the
	// other's, which the other worker then takes. The first round lets
	// build-02 pull first, the second build-01.
	for round, first := range []string{"build-02", "build-01"} {
		other := map[string]string{"build-01": "build-02", "build-02": "build-01"}[first]
		env.MakeDue(t, 1000)
		eventually(t, 30*time.Second, "the Runs of every trigger to be queued", func() bool {
			return env.Int(t, `SELECT count(*) FROM qinglong.runs WHERE state = 'queued'`) == 3
		})
		got := pull(first)
		if !slices.Contains(got, "pull-"+first) || slices.Contains(got, "pull-"+other) {
			t.Fatalf("round %d: %s, pulling with every Run queued, was granted %v; want its own pull and never %s's", round+1, first, got, other)
		}
		if got := pull(other); !slices.Contains(got, "pull-"+other) {
			t.Fatalf("round %d: %s was granted %v; want its own pull", round+1, other, got)
		}
	}
}
