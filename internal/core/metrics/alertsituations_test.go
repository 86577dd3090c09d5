package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// firing are the situations each example rule is for, as a walk with real
// servers provoked them (a failing task, a task no worker may run, a
// notification channel refusing, a database stopped, workers killed,
// tokens guessed, two versions), a sample a minute: Prometheus's
// evaluator must fire the rule in each.
var firing = []situation{
	{alert: "QingLongDown", at: "5m",
		series: map[string]string{"up": "1 1 0x8", "qinglong_ready": "1 1"},
		want:   []map[string]string{server}},
	{alert: "QingLongNotReady", at: "5m",
		series: map[string]string{"qinglong_ready": "0x10", `qinglong_readiness_state{state="database_unavailable"}`: "1x10"},
		want:   []map[string]string{server}},
	{alert: "QingLongAdmissionLagHigh", at: "20m",
		series: map[string]string{
			`qinglong_scheduler_admission_lag_seconds_bucket{le="5"}`:    "0x30",
			`qinglong_scheduler_admission_lag_seconds_bucket{le="10"}`:   "0+6x30",
			`qinglong_scheduler_admission_lag_seconds_bucket{le="+Inf"}`: "0+6x30"},
		want: []map[string]string{{}}},
	{alert: "QingLongBacklogOld", at: "15m",
		series: map[string]string{"qinglong_schedule_oldest_due_age_seconds": "0+60x20", "qinglong_schedule_due_rows": "3x20"},
		want:   []map[string]string{{}}},
	{alert: "QingLongRunQueuedLong", at: "25m",
		series: map[string]string{"qinglong_runs_oldest_queued_age_seconds": "0+60x30", `qinglong_runs{state="queued"}`: "9x30"},
		want:   []map[string]string{{}}},
	{alert: "QingLongTriggerNotSucceeding", at: "1510m",
		series: map[string]string{
			`qinglong_trigger_last_success_timestamp_seconds{project="mon",trigger="fails-5s"}`: "60x1520",
			`qinglong_trigger_last_run_timestamp_seconds{project="mon",trigger="fails-5s"}`:     "0+60x1520",
			`qinglong_trigger_paused{project="mon",trigger="fails-5s"}`:                         "0x1520"},
		want: []map[string]string{{"project": "mon", "trigger": "fails-5s"}}},
	{alert: "QingLongTriggerNeverSucceeded", at: "370m",
		series: map[string]string{
			`qinglong_trigger_last_success_timestamp_seconds{project="mon",trigger="fails-5s"}`: "0x380",
			`qinglong_trigger_last_run_timestamp_seconds{project="mon",trigger="fails-5s"}`:     "0+60x380",
			`qinglong_trigger_paused{project="mon",trigger="fails-5s"}`:                         "0x380"},
		want: []map[string]string{{"project": "mon", "trigger": "fails-5s"}}},
	{alert: "QingLongTriggerNoRecentRun", at: "140m",
		series: map[string]string{
			`qinglong_trigger_last_run_timestamp_seconds{project="mon",trigger="ok-5s"}`: "60x150",
			`qinglong_trigger_paused{project="mon",trigger="ok-5s"}`:                     "0x150"},
		want: []map[string]string{{"project": "mon", "trigger": "ok-5s"}}},
	{alert: "QingLongPerTriggerCapReached", at: "70m",
		series: map[string]string{"qinglong_triggers_left_out": "1x80"},
		want:   []map[string]string{{}}},
	{alert: "QingLongAuthFailuresHigh", at: "20m",
		series: map[string]string{`qinglong_auth_failures_total{surface="api",reason="unknown"}`: "0+120x30"},
		want:   []map[string]string{{"surface": "api"}}},
	{alert: "QingLongCommitsFailing", at: "10m",
		series: map[string]string{`qinglong_scheduler_decisions_total{outcome="unavailable",reason="connection_lost"}`: "0+10x20"},
		want:   []map[string]string{{"reason": "connection_lost"}}},
	{alert: "QingLongRoundsFailing", at: "20m",
		series: map[string]string{"qinglong_scheduler_round_failures_total": "0+1x30"},
		want:   []map[string]string{{}}},
	{alert: "QingLongClaimsNotGivenBack", at: "5m",
		series: map[string]string{`qinglong_scheduler_claims_given_back_total{result="failed"}`: "0 0 3x10"},
		want:   []map[string]string{{}}},
	{alert: "QingLongOccurrencesMisfired", at: "5m",
		series: map[string]string{`qinglong_scheduler_occurrences_passed_total{reason="misfire"}`: "0 0 5x10"},
		want:   []map[string]string{{"reason": "misfire"}}},
	{alert: "QingLongAttemptsLost", at: "5m",
		series: map[string]string{"qinglong_attempts_lost_total": "0 0 4x10"},
		want:   []map[string]string{{}}},
	{alert: "QingLongRunsFailing", at: "50m",
		series: map[string]string{
			`qinglong_runs_finished_total{outcome="failed"}`:    "0+6x60",
			`qinglong_runs_finished_total{outcome="succeeded"}`: "0+6x60"},
		want: []map[string]string{{}}},
	{alert: "QingLongNotificationsDead", at: "10m",
		series: map[string]string{`qinglong_notification_deliveries_total{outcome="dead"}`: "0+1x20"},
		want:   []map[string]string{{}}},
	{alert: "QingLongNoWorkers", at: "10m",
		series: map[string]string{"qinglong_worker_sessions": "0x20", `qinglong_runs{state="queued"}`: "3x20"},
		want:   []map[string]string{{}}},
	{alert: "QingLongWorkerLost", at: "5m",
		series: map[string]string{`qinglong_workers{state="expired"}`: "0 1 0x9", `qinglong_workers{state="lost"}`: "0 0 1x10"},
		want:   []map[string]string{{"state": "lost"}}},
	{alert: "QingLongWorkersFull", at: "20m",
		series: map[string]string{"qinglong_worker_free_slots": "0x30", `qinglong_runs{state="queued"}`: "2x30"},
		want:   []map[string]string{{}}},
	{alert: "QingLongRunsUnplaceable", at: "15m",
		series: map[string]string{"qinglong_runs_unplaceable": "9x20", "qinglong_worker_sessions": "2x20"},
		want:   []map[string]string{{}}},
	{alert: "QingLongVersionSkew", at: "70m",
		series: map[string]string{
			`qinglong_info{profile="cluster",version="dev",commit="unknown",instance="ql-1:8080",job="qinglong"}`:    "1x80",
			`qinglong_info{profile="cluster",version="v9.9.9",commit="unknown",instance="ql-2:8080",job="qinglong"}`: "1x80"},
		want: []map[string]string{{}}},
	{alert: "QingLongReplicasOnDifferentDatabases", at: "10m",
		series: map[string]string{
			`qinglong_database_server_info{address="db:5432",server_address="10.0.0.1:5432",system_identifier="7716",timeline="1",instance="ql-1:8080",job="qinglong"}`: "1x20",
			`qinglong_database_server_info{address="db:5432",server_address="10.0.0.2:5432",system_identifier="7716",timeline="2",instance="ql-2:8080",job="qinglong"}`: "1x20"},
		want: []map[string]string{{}}},
	{alert: "QingLongMonitoringReadsFail", at: "15m",
		series: map[string]string{"qinglong_ready": "1x20", "qinglong_monitor_read_failures_total": "0+6x20"},
		want:   []map[string]string{server}},
	{alert: "QingLongDiskNearlyFull", at: "10m",
		series: map[string]string{"qinglong_data_dir_free_bytes": "500000000x20"},
		want:   []map[string]string{server}},
	{alert: "QingLongDiskFillingUp", at: "70m",
		series: map[string]string{"qinglong_data_dir_free_bytes": "100000000000-100000000x80"},
		want:   []map[string]string{server}},
	{alert: "QingLongRetentionStalled", at: "75m",
		series: map[string]string{"qinglong_retention_last_pass_timestamp_seconds": "60x80", "process_start_time_seconds": "0x80"},
		want:   []map[string]string{server}},
}

// Every example alert rule fires, as Prometheus evaluates it, in the
// situation it is for, on series a server exposes with the labels it
// gives them; a rule of alerts.yaml without its situation here fails.
func TestEveryExampleAlertFiresInTheSituationItIsFor(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(exampleDir, "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct{ Rules []struct{ Alert string } }
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, s := range firing {
		covered[s.alert] = true
	}
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if !covered[r.Alert] {
				t.Errorf("alerts.yaml's %s has no situation here it fires in", r.Alert)
			}
		}
	}
	evaluate(t, firing)
}

// A database outage fails the monitoring reads while the server is not
// ready (QingLongNotReady's); once the database is back and the reads
// answer, QingLongMonitoringReadsFail stays silent instead of firing for
// the ten minutes its window still holds the outage's failures (it did in
// the walk, on both replicas, right after PostgreSQL came back).
func TestQingLongMonitoringReadsFailIsSilentOnceTheDatabaseIsBack(t *testing.T) {
	outage := map[string]string{"qinglong_ready": "1 1 0 0 1x20", "qinglong_monitor_read_failures_total": "0 0 14 28 28x20"}
	evaluate(t, []situation{
		{alert: "QingLongMonitoringReadsFail", at: "5m", series: outage},
		{alert: "QingLongMonitoringReadsFail", at: "12m", series: outage},
		{alert: "QingLongMonitoringReadsFail", at: "15m", series: outage},
	})
}

// A database outage longer than the session lease expires every worker's
// session; the workers register again once a replica answers, and their
// sessions count as expired for the hour, never as lost:
// QingLongWorkerLost stays silent (it fired for an hour after each outage
// when it alerted on every expired session). A worker that stays away
// among them is lost, and fires it.
func TestQingLongWorkerLostIsSilentForWorkersBackAfterAnOutage(t *testing.T) {
	evaluate(t, []situation{
		{alert: "QingLongWorkerLost", at: "30m", series: map[string]string{
			`qinglong_workers{state="active"}`: "3 3 0 3x60", `qinglong_workers{state="expired"}`: "0 0 3x60", `qinglong_workers{state="lost"}`: "0x63"}},
		{alert: "QingLongWorkerLost", at: "30m", series: map[string]string{
			`qinglong_workers{state="active"}`: "3 3 0 2x60", `qinglong_workers{state="expired"}`: "0 0 3 2x60", `qinglong_workers{state="lost"}`: "0 0 0 1x60"},
			want: []map[string]string{{"state": "lost"}}},
	})
}

// Replicas on one PostgreSQL server, one of which may not read its address
// (unknown), are not replicas on different servers.
func TestQingLongReplicasOnDifferentDatabasesIsSilentForReplicasOnOneServer(t *testing.T) {
	evaluate(t, []situation{{alert: "QingLongReplicasOnDifferentDatabases", at: "10m", series: map[string]string{
		`qinglong_database_server_info{address="db:5432",server_address="10.0.0.1:5432",system_identifier="7716",timeline="1",instance="ql-1:8080",job="qinglong"}`:    "1x20",
		`qinglong_database_server_info{address="db:5432",server_address="10.0.0.1:5432",system_identifier="7716",timeline="1",instance="ql-2:8080",job="qinglong"}`:    "1x20",
		`qinglong_database_server_info{address="db:5432",server_address="unknown",system_identifier="unknown",timeline="unknown",instance="ql-3:8080",job="qinglong"}`: "1x20"}}})
}
