package pgstore

import (
	"reflect"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A database written before the stored command form was shared still
// works: a task revision and its execution revision holding the former
// encoding (every field written, empty lists as []) read back, verify
// their digests and admit.
func TestCommandsStoredInTheFormerEncodingStillReadAndAdmit(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, p := s.dueTicket(t, s.runtime)
	const former = `{"mode":"argv","path":"/usr/bin/env","args":["true"],"shell":"","script":"","env":[],"workingDir":"","timeoutMs":60000}`
	if n := s.currentlyEncoded(t); n != 2 {
		t.Fatalf("%d rows hold the current encoding after publishing, want 2", n)
	}
	s.exec(t, `UPDATE qinglong.task_revisions SET command = $1::jsonb WHERE task_id = $2`, former, d.task.TaskID)
	s.exec(t, `UPDATE qinglong.execution_revisions SET command = $1::jsonb WHERE task_id = $2`, former, d.task.TaskID)
	if n := s.currentlyEncoded(t); n != 0 {
		t.Fatalf("%d rows still hold the current encoding", n)
	}
	got, err := s.admin.TaskByName(t.Context(), d.project.ID, "job")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Spec, d.task.Spec) || got.ContentDigest != d.task.ContentDigest {
		t.Fatalf("former encoding reads back as %+v (%s), want %+v (%s)", got.Spec, got.ContentDigest, d.task.Spec, d.task.ContentDigest)
	}
	if res, err := s.runtime.ScheduleCommit(t.Context(), p); err != nil || res.Outcome != schedule.Admitted {
		t.Fatalf("admission over an execution revision in the former encoding: %s (%s), %v", res.Outcome, res.Reason, err)
	}
}

// currentlyEncoded counts the stored commands in the current (versioned)
// encoding.
func (s *store) currentlyEncoded(t *testing.T) int {
	t.Helper()
	var n int
	if err := s.super.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM qinglong.task_revisions WHERE command ? 'format')
		+ (SELECT count(*) FROM qinglong.execution_revisions WHERE command ? 'format')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
