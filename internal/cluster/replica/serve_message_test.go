package replica

import (
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// The readiness line a replica logs reads as the code, what is wrong and
// what to do, then the detail, each set off by a colon: the detail must
// not run on into the advice before it.
func TestTheReadinessLineSetsTheDetailOffFromTheAdvice(t *testing.T) {
	t.Parallel()
	behind := &pgstore.ReadinessError{Code: pgstore.CodeHistoryBehind, Detail: "the database is at pg-0018-x, this binary needs up to pg-0020-y"}
	want := "history_behind: " + behind.Message() + ": the database is at pg-0018-x, this binary needs up to pg-0020-y"
	if got := readinessMessage(behind); got != want {
		t.Errorf("readiness line %q; want %q", got, want)
	}
	bare := &pgstore.ReadinessError{Code: pgstore.CodeNotPrimary}
	if got, want := readinessMessage(bare), "not_primary: "+bare.Message(); got != want {
		t.Errorf("readiness line without a detail %q; want %q", got, want)
	}
}
