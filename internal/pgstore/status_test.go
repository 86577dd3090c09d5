package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/schedule"
)

func TestTriggerListPagesWithScheduleState(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := s.publish(t, "alpha")
	s.publish(t, "beta")
	claimed := s.takeAll(t, s.runtime)
	if len(claimed) != 2 {
		t.Fatalf("took %d", len(claimed))
	}
	first, next, err := s.runtime.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 1})
	if err != nil || len(first) != 1 || next == "" {
		t.Fatalf("first page %v next %q: %v", first, next, err)
	}
	second, next2, err := s.runtime.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 1, After: next})
	if err != nil || len(second) != 1 || next2 != "" || second[0].TriggerID <= first[0].TriggerID {
		t.Fatalf("second page %v next %q: %v", second, next2, err)
	}
	only, _, err := s.runtime.TriggerList(t.Context(), schedule.TriggerListParams{ProjectID: a.project.ID})
	if err != nil || len(only) != 1 {
		t.Fatalf("project filter: %v %v", only, err)
	}
	st := only[0]
	if st.ProjectName != "alpha" || st.TaskName != "job" || st.Revision != 1 || !st.Enabled || st.Cron != a.trigger.Spec.Cron ||
		st.ClaimOwner == nil || *st.ClaimOwner != "replica-a" || st.ClaimExpiresAtMs == nil {
		t.Fatalf("status %+v; want alpha/job revision 1, enabled, claimed by replica-a", st)
	}
	_, _, err = s.runtime.TriggerList(t.Context(), schedule.TriggerListParams{ProjectID: "nope"})
	if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "projectId") {
		t.Fatalf("bad project id: %v", err)
	}
}

func TestRuntimeConfigNamesTheFieldAndRange(t *testing.T) {
	t.Parallel()
	cases := map[string]RuntimeConfig{
		"runtime owner":       {Owner: "has space", Lease: DefaultLease},
		"claim lease 500ms":   {Owner: "a", Lease: 500 * time.Millisecond},
		"claim lease 1m1s":    {Owner: "a", Lease: 61 * time.Second},
		"runtime pool size 1": {Owner: "a", MaxConns: 1},
		"role prefix":         {Owner: "a", RolePrefix: "Bad-Prefix"},
	}
	for want, cfg := range cases {
		err := cfg.WithDefaults().Validate()
		if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("config %+v: %v; want an invalid error mentioning %q", cfg, err, want)
		}
	}
	if err := (RuntimeConfig{Owner: "replica-1"}).WithDefaults().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
}
