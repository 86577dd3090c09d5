package clustertest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// ConnectWorker creates a worker credential named name carrying labels and
// registers a session of it on rt with capacity slots, as a worker process
// does when it starts: the worker is then live to the pulls and reads of
// every replica. It returns the worker's identity and the registration.
func (e *Env) ConnectWorker(t testing.TB, rt *pgstore.Runtime, name string, labels map[string]string, capacity int) (pgstore.WorkerIdentity, workerproto.RegisterReply) {
	t.Helper()
	cred := e.WorkerCredential(t, name, labels, capacity)
	id, err := rt.AuthenticateWorker(t.Context(), cred)
	if err != nil {
		t.Fatalf("authenticate worker %s: %v", name, err)
	}
	reg, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: capacity, Version: "test"}, pgstore.WorkerSettings{})
	if err != nil {
		t.Fatalf("register worker %s: %v", name, err)
	}
	return id, reg.RegisterReply
}

// WorkerCredential creates a worker credential named name carrying labels,
// of at most capacity slots, as `ql workers create` does, and returns it.
func (e *Env) WorkerCredential(t testing.TB, name string, labels map[string]string, capacity int) string {
	t.Helper()
	cred, err := e.adminStore(t).WorkerCreate(t.Context(), name, labels, capacity)
	if err != nil {
		t.Fatalf("create worker %s: %v", name, err)
	}
	return cred
}
