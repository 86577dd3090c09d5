package replica

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// CodeSchemaChanged is the diagnostic code of a replica that found, while
// it ran, a migration history other than its binary's: another build's
// `ql db migrate` (or a restore) changed the schema under it.
const CodeSchemaChanged = "serve.schema_changed"

// schemaWatch is what an activation learnt of its database's migration
// history after readiness: nothing, or the readiness error of a history
// that is no longer this binary's. It is said once; changed is closed then.
type schemaWatch struct {
	once    sync.Once
	changed chan struct{}
	err     error
}

func newSchemaWatch() *schemaWatch { return &schemaWatch{changed: make(chan struct{})} }

// found records err, the first history found to differ, and wakes the
// supervisor.
func (w *schemaWatch) found(err error) {
	w.once.Do(func() {
		w.err = err
		close(w.changed)
	})
}

// checkSchema repeats readiness's history check while the replica runs,
// at every heartbeat: readiness ran at the activation only, and a replica
// on a schema its binary does not know must not go on claiming, admitting
// or granting (its writes would miss what the newer migrations added, and
// its statements may no longer fit). A different history is told to the
// supervisor, which stops the replica; a failed read is an ordinary
// database error, retried at the next beat.
func (r *replica) checkSchema(ctx context.Context, act *activation) error {
	if !act.latch.Available() {
		return nil
	}
	err := act.rt.CheckHistory(ctx)
	var re *pgstore.ReadinessError
	if errors.As(err, &re) {
		act.schema.found(err)
		return nil
	}
	if err != nil {
		r.observeOn(act, err)
		r.log.Warn("could not read the migration history; checking again at the next heartbeat", slog.String("code", CodeHeartbeatFailed), slog.String("error", errorText(err)))
	}
	return err
}

// schemaChanged logs why a replica stops on a schema it does not know, and
// what to do, and returns the error it exits with.
func (r *replica) schemaChanged(err error) error {
	var re *pgstore.ReadinessError
	code := ""
	if errors.As(err, &re) {
		code = re.Code
	}
	r.log.Error("the database's migration history changed while this replica ran, so its binary no longer knows the schema: it stops scheduling and granting, and exits (error says what to do; docs/operations.md, \"Upgrading\")",
		slog.String("code", CodeSchemaChanged), slog.String("readiness_code", code), slog.String("error", readinessMessage(err)))
	return &activationError{step: "schema check", err: err}
}
