package cli

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A write a database that takes no writes refused (a standby) is a
// definite refusal: `ql triggers run` must not say it may have queued a
// Run, as it says for a connection lost under way, which stays a lost
// answer.
func TestARefusalByADatabaseThatTakesNoWritesIsNotALostAnswer(t *testing.T) {
	t.Parallel()
	refused := qlerror.New(qlerror.Unavailable, "admitting: the database takes no writes").Because(schedule.RefusalNotPrimary)
	if answerLost(refused) {
		t.Error("a standby's refusal read as a lost answer: the command would say the Run may have been queued")
	}
	if !answerLost(qlerror.New(qlerror.Unavailable, "admitting: the database is unavailable")) {
		t.Error("a connection lost under way no longer reads as a lost answer")
	}
}
