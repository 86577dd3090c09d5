package pgstore

import (
	"strconv"
	"testing"
)

// TestScheduleFlagBackfillMatchesTheClaimsEligibility: a database that
// already holds schedule rows at pg-0001 gets pg-0002's schedulable flag
// computed exactly like the claim's eligibility — true only for the row a
// claim may take (a false one would never fire again).
func TestScheduleFlagBackfillMatchesTheClaimsEligibility(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url, conn := databaseBefore(t, "pg-0002-")
	// Project a (active) has task ka at revision 2; project b is archived.
	// Triggers: eligible, disabled, pinned to ka's old revision 1, and one
	// in the archived project.
	const (
		pa, pb = "00000000-0000-7000-8000-00000000000a", "00000000-0000-7000-8000-00000000000b"
		ka, kb = "00000000-0000-7000-8000-0000000000a1", "00000000-0000-7000-8000-0000000000b1"
	)
	triggers := map[string]struct {
		project, task   string
		enabled         bool
		taskRevision    int
		wantSchedulable bool
	}{
		"00000000-0000-7000-8000-000000000001": {pa, ka, true, 2, true},
		"00000000-0000-7000-8000-000000000002": {pa, ka, false, 2, false},
		"00000000-0000-7000-8000-000000000003": {pa, ka, true, 1, false},
		"00000000-0000-7000-8000-000000000004": {pb, kb, true, 1, false},
	}
	digest := "'sha256:' || repeat('a', 64)"
	stmts := []string{
		`SET session_replication_role = replica`,
		`INSERT INTO qinglong.projects VALUES ('` + pa + `', 'a', 'active', 0, 0), ('` + pb + `', 'b', 'archived', 0, 0)`,
		`INSERT INTO qinglong.tasks VALUES ('` + ka + `', '` + pa + `', 'job', 2, 0, 0), ('` + kb + `', '` + pb + `', 'job', 1, 0, 0)`,
		`INSERT INTO qinglong.task_revisions VALUES
			('` + ka + `', 1, '` + pa + `', 'qinglong/command@v1', 'job', true, '{}', '{}', ` + digest + `, 'm1', 0),
			('` + ka + `', 2, '` + pa + `', 'qinglong/command@v1', 'job', true, '{}', '{}', ` + digest + `, 'm2', 0),
			('` + kb + `', 1, '` + pb + `', 'qinglong/command@v1', 'job', true, '{}', '{}', ` + digest + `, 'm1', 0)`,
	}
	for id, tg := range triggers {
		enabled := "false"
		if tg.enabled {
			enabled = "true"
		}
		name := "'t" + id[len(id)-1:] + "'"
		rev := strconv.Itoa(tg.taskRevision)
		stmts = append(stmts,
			`INSERT INTO qinglong.triggers VALUES ('`+id+`', '`+tg.project+`', '`+tg.task+`', `+name+`, 1, 0, 0)`,
			`INSERT INTO qinglong.trigger_revisions VALUES ('`+id+`', 1, '`+tg.project+`', '`+tg.task+`', `+rev+`, `+digest+`,
				'qinglong/cron@v1', `+name+`, `+enabled+`, '* * * * *', 'UTC', 'fire_once', `+digest+`, 'm', 0)`,
			`INSERT INTO qinglong.trigger_schedules VALUES ('`+id+`', '`+tg.project+`', 1, NULL, NULL, 1, NULL, NULL, 0, NULL, 0)`)
	}
	stmts = append(stmts, `RESET session_replication_role`)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("pg-0001 fixture: %v\n%s", err, s)
		}
	}

	if _, err := Migrate(ctx, url, nil); err != nil {
		t.Fatalf("migrate to pg-0002: %v", err)
	}
	for id, tg := range triggers {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT schedulable FROM qinglong.trigger_schedules WHERE trigger_id = $1`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tg.wantSchedulable {
			t.Errorf("trigger %s (enabled %v, pins task revision %d, project %s): schedulable %v after the backfill, want %v",
				id, tg.enabled, tg.taskRevision, tg.project, got, tg.wantSchedulable)
		}
	}
}
