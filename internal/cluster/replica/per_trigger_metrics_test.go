package replica

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/metrics"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/metricstest"
)

// perTriggerFamilies are the families --metrics-per-trigger adds.
var perTriggerFamilies = []string{
	"qinglong_trigger_last_success_timestamp_seconds", "qinglong_trigger_last_run_timestamp_seconds",
	"qinglong_trigger_next_fire_timestamp_seconds", "qinglong_triggers_left_out",
}

// servePerTrigger serves a ready replica of env with --metrics-per-trigger
// perTrigger and returns it with its metrics address.
func servePerTrigger(t *testing.T, env *clustertest.Env, id string, perTrigger int) (*inProcess, string) {
	t.Helper()
	f := metricsReplicaFlags(env, id)
	f.MetricsPerTrigger = perTrigger
	p := serveInProcess(t, f)
	p.awaitReady(t)
	addr, _ := p.logs.withCode(CodeMetricsListening)[0]["addr"].(string)
	return p, "http://" + addr + "/metrics"
}

// Without --metrics-per-trigger a replica exports no series naming a
// trigger; a replica of the same database given it does.
func TestPerTriggerMetricsAreOffByDefault(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("watch", 2, clustertest.QuietCron()))
	for i, perTrigger := range []int{0, 2} {
		_, url := servePerTrigger(t, env, "replica-per-trigger-"+string(rune('a'+i)), perTrigger)
		m := metricstest.Scrape(t, url)
		for _, name := range perTriggerFamilies {
			// The next fire time appears once a round initialised the
			// schedule, which a scrape at start may precede.
			if _, present := m[name]; present != (perTrigger > 0) && (perTrigger == 0 || name != perTriggerFamilies[2]) {
				t.Errorf("with --metrics-per-trigger %d, %s present: %v", perTrigger, name, present)
			}
		}
	}
}

// Given more triggers than --metrics-per-trigger, a replica exports the
// first by project then trigger name, says how many it left out, and warns
// once under its code.
func TestPerTriggerMetricsExportAtMostTheCap(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("watch", 3, clustertest.QuietCron()))
	p, url := servePerTrigger(t, env, "replica-capped", 2)
	m := metricstest.Scrape(t, url)
	for _, name := range perTriggerFamilies[:2] {
		if got := strings.Join(m.LabelValues(name, "trigger"), ","); got != "t00000,t00001" {
			t.Errorf("%s exports triggers %q, want t00000,t00001 (the first 2 by name)", name, got)
		}
	}
	if got := m.Value(t, "qinglong_triggers_left_out"); got != 1 {
		t.Errorf("qinglong_triggers_left_out = %g, want 1 (t00002)", got)
	}
	eventually(t, 10*time.Second, "the cap warned about", func() bool { return len(p.logs.withCode(metrics.CodePerTriggerCapped)) > 0 })
	warned := p.logs.withCode(metrics.CodePerTriggerCapped)
	if len(warned) != 1 || warned[0]["level"] != "WARN" || warned[0]["left_out"] != float64(1) {
		t.Errorf("the cap was warned about as %v; want one warning with left_out 1", warned)
	}
}

// A trigger whose Run succeeded, then whose next Run failed, shows the end
// of the succeeded Run as its last success and the creation of the failed
// one as its last Run, in database time: an alert on time() minus the
// last success sees it age while the trigger keeps running. The Runs are
// admitted by the replica; their ends are written as a worker's completion
// would leave them.
func TestATriggerThatStopsSucceedingShowsItsLastSuccess(t *testing.T) {
	t.Parallel()
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("watch", 1, clustertest.QuietCron()))
	_, url := servePerTrigger(t, env, "replica-last-success", 5)
	env.MakeDue(t, 5000)
	eventually(t, 30*time.Second, "the first Run admitted", func() bool { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) == 1 })
	env.Exec(t, `UPDATE qinglong.runs SET state = 'succeeded', finished_at_ms = created_at_ms + 10, updated_at_ms = created_at_ms + 10, version = version + 1`)
	env.MakeDue(t, 2000)
	eventually(t, 30*time.Second, "the next Run admitted", func() bool { return env.Int(t, `SELECT count(*) FROM qinglong.runs`) == 2 })
	env.Exec(t, `UPDATE qinglong.runs SET state = 'failed', finished_at_ms = created_at_ms + 10, updated_at_ms = created_at_ms + 10, version = version + 1
		WHERE state <> 'succeeded'`)
	eventually(t, 30*time.Second, "the schedule advanced past the next Run", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE claim_owner IS NULL AND next_fire_at_ms > `+pgstore.ClockMsSQL) == 1
	})
	succeededAt := env.Int(t, `SELECT finished_at_ms FROM qinglong.runs WHERE state = 'succeeded'`)
	failedCreatedAt := env.Int(t, `SELECT created_at_ms FROM qinglong.runs WHERE state = 'failed'`)
	nextDue := env.Int(t, `SELECT next_fire_at_ms + due_offset_ms FROM qinglong.trigger_schedules`)
	m := metricstest.Scrape(t, url)
	for name, want := range map[string]int64{
		perTriggerFamilies[0]: succeededAt,
		perTriggerFamilies[1]: failedCreatedAt,
		perTriggerFamilies[2]: nextDue,
	} {
		if got := m.Value(t, name, "project", "watch", "trigger", "t00000"); got != float64(want)/1000 {
			t.Errorf("%s = %g, want %g", name, got, float64(want)/1000)
		}
	}
	if failedCreatedAt <= succeededAt {
		t.Errorf("the failed Run was created at %d, not after the success at %d", failedCreatedAt, succeededAt)
	}
}
