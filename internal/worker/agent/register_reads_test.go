package agent

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A worker says, as it registers, every grant field it honours
// (projectEnv), so a replica gives it the Runs of a project with an env;
// a replica older than the field refuses it as unknown, and the worker
// registers again without it and runs its commands as before.
func TestAWorkerSaysWhichGrantFieldsItReadsAndRegistersWithAnOlderReplicaWithout(t *testing.T) {
	t.Parallel()
	for _, older := range []bool{false, true} {
		in := newIngress(t, 30_000)
		in.beforeReads = older
		g := in.enqueue(t, shell(`true`))
		runAgent(t, in, nil)
		if done := in.completed(g.AttemptID); done.Outcome != workerproto.OutcomeExited {
			t.Fatalf("older replica %v: completion %+v, want exited", older, done)
		}
		in.mu.Lock()
		reads := slices.Clone(in.registeredReads)
		in.mu.Unlock()
		if len(reads) != 1 {
			t.Fatalf("older replica %v: %d registrations taken, want 1", older, len(reads))
		}
		want := []string{workerproto.ReadProjectEnv}
		if older {
			want = nil
		}
		if !slices.Equal(reads[0], want) {
			t.Fatalf("older replica %v: the registration taken read %q, want %q", older, reads[0], want)
		}
	}
}
