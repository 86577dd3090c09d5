package pgstore

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

type WorkerIdentity struct{ ID, Name string }
type WorkerSettings struct {
	RunLease time.Duration
	LogCap   int64
}
type SweepResult struct{ Released, Lost, Retried, RunsLost, Requeued, SessionsExpired int }

var errPending = qlerror.New(qlerror.Unavailable, "pending")

func (r *Runtime) AuthenticateWorker(ctx context.Context, credential string) (WorkerIdentity, error) {
	return WorkerIdentity{}, errPending
}
func (r *Runtime) RegisterWorker(ctx context.Context, w WorkerIdentity, req workerproto.RegisterRequest, s WorkerSettings) (workerproto.RegisterReply, error) {
	return workerproto.RegisterReply{}, errPending
}
func (r *Runtime) HeartbeatWorker(ctx context.Context, w WorkerIdentity, req workerproto.HeartbeatRequest) (workerproto.HeartbeatReply, error) {
	return workerproto.HeartbeatReply{}, errPending
}
func (r *Runtime) PullGrants(ctx context.Context, w WorkerIdentity, req workerproto.PullRequest, s WorkerSettings) (workerproto.PullReply, error) {
	return workerproto.PullReply{}, errPending
}
func (r *Runtime) StartAttempt(ctx context.Context, w WorkerIdentity, req workerproto.StartRequest, s WorkerSettings) (workerproto.LeaseReply, error) {
	return workerproto.LeaseReply{}, errPending
}
func (r *Runtime) RenewAttempt(ctx context.Context, w WorkerIdentity, req workerproto.RenewRequest, s WorkerSettings) (workerproto.LeaseReply, error) {
	return workerproto.LeaseReply{}, errPending
}
func (r *Runtime) AppendAttemptLog(ctx context.Context, w WorkerIdentity, req workerproto.LogRequest, s WorkerSettings) (workerproto.LogReply, error) {
	return workerproto.LogReply{}, errPending
}
func (r *Runtime) CompleteAttempt(ctx context.Context, w WorkerIdentity, req workerproto.CompleteRequest) (workerproto.CompleteReply, error) {
	return workerproto.CompleteReply{}, errPending
}
func (r *Runtime) SweepLeases(ctx context.Context, limit int) (SweepResult, error) {
	return SweepResult{}, nil
}
func (r *Runtime) NotifyRunsQueued(ctx context.Context) error { return nil }
func (r *Runtime) ListenRunsQueued(ctx context.Context, wake func()) error {
	<-ctx.Done()
	return nil
}
func (a *Admin) WorkerCreate(ctx context.Context, name string, labels map[string]string, maxConcurrency int) (string, error) {
	return "", errPending
}
func (a *Admin) WorkerRevoke(ctx context.Context, name string) error { return errPending }
