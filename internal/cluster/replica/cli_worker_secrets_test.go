package replica

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A cluster's `ql apply` (and its dry run) of a task that uses secrets and
// sets no placement says that its Runs may go to any worker, naming the
// task and its secrets and what to do: each worker that can take it holds
// them, or placement pins it. A task pinned by placement gets no such note.
func TestAClusterApplyOfATaskUsingSecretsWithoutPlacementSaysEveryWorkerMustHoldThem(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin := env.URL(pgstore.RoleAdmin)
	file := filepath.Join(t.TempDir(), "defs.yaml")
	defs := "project: vault\ntasks:\n" +
		"  - {name: deploy, script: echo, env: {TOKEN: {secret: api-token}, DB: {secret: db-pass}}}\n" +
		"  - {name: pinned, script: echo, env: {TOKEN: {secret: api-token}}, placement: {labels: {vault: \"yes\"}}}\n"
	if err := os.WriteFile(file, []byte(defs), 0o600); err != nil {
		t.Fatal(err)
	}
	const want = "note: these tasks use secrets but set no placement, so their Runs may go to any worker"
	for _, args := range [][]string{{"apply", "--dry-run", "-f", file}, {"apply", "-f", file}} {
		code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, args...)
		if code != 0 || strings.Count(out, want) != 1 || !strings.Contains(out, "(tasks: deploy (secrets: db-pass, api-token))") ||
			!strings.Contains(out, "`ql-worker secrets set NAME --secrets-file FILE` on each worker's host") || !strings.Contains(out, "placement.labels") {
			t.Fatalf("%v: exit %d\n%s\nwant one note naming deploy, its secrets and what to do", args, code, out)
		}
	}
}
