package workeringress

import (
	"context"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// Store is what the ingress needs of the database: the runtime's worker
// API, one short transaction per call, fenced and idempotent on replay.
type Store interface {
	AuthenticateWorker(ctx context.Context, credential string) (pgstore.WorkerIdentity, error)
	RegisterWorker(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.RegisterRequest, s pgstore.WorkerSettings) (pgstore.Registered, error)
	HeartbeatWorker(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.HeartbeatRequest) (workerproto.HeartbeatReply, error)
	PullGrants(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.PullRequest, s pgstore.WorkerSettings) (workerproto.PullReply, error)
	StopsAsked(ctx context.Context, w pgstore.WorkerIdentity, sessionID string) ([]string, error)
	StartAttempt(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.StartRequest, s pgstore.WorkerSettings) (pgstore.Started, error)
	RenewAttempt(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.RenewRequest, s pgstore.WorkerSettings) (workerproto.LeaseReply, error)
	AppendAttemptLog(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.LogRequest, s pgstore.WorkerSettings) (workerproto.LogReply, error)
	CompleteAttempt(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.CompleteRequest) (pgstore.Completed, error)
	EndWorkerSession(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.EndRequest) (workerproto.EndReply, error)
	GiveBackGrant(ctx context.Context, w pgstore.WorkerIdentity, req workerproto.GiveBackRequest) (workerproto.GiveBackReply, error)
}

var _ Store = (*pgstore.Runtime)(nil)

// Acquire hands out the store of the replica's live activation and a
// release to call once the request no longer uses it, so the activation's
// pool is never closed under a request. ok is false while the replica is
// not ready: starting, between activations, or draining.
type Acquire func() (st Store, release func(), ok bool)
