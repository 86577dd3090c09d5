package pgstore

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// ReplicaInfo is one replica's heartbeat row. Live means not stopped and
// not expired by the database clock.
type ReplicaInfo struct {
	ID, Host, Version string
	PID               int64
	StartedAtMs       int64
	LastSeenAtMs      int64
	ExpiresAtMs       int64
	Live              bool
}

// ReplicaBeat is one heartbeat of this replica: who it is, and how long
// the row stays live without the next one.
type ReplicaBeat struct {
	Host, Version string
	PID           int64
	TTL           time.Duration
	// First is the first beat of a process: it (re)starts the row, even
	// one a previous process under the same id marked stopped.
	First bool
}

// Bounds of the replica list: rows seen within replicaListWindow, at most
// replicaListLimit of them, so the read stays small however many replicas
// came and went.
const (
	replicaListWindow = time.Hour
	replicaListLimit  = 100
)

// replicaKeep is how long after a replica stopped or expired its row
// stays for the retention pass (the maintenance role) to remove, and
// replicaPrunePage bounds one removal.
const (
	replicaKeep      = 24 * time.Hour
	replicaPrunePage = 256
)

// Beat upserts this replica's heartbeat row, its times by the database
// clock. A beat after this process marked the row stopped changes
// nothing, so a beat racing the stop cannot revive it.
func (r *Runtime) Beat(ctx context.Context, b ReplicaBeat) error {
	if b.TTL < time.Millisecond || b.Host == "" || b.Version == "" || b.PID <= 0 {
		return qlerror.New(qlerror.Invalid, "replica heartbeat needs a host, a version, a pid and a time to live of at least 1 ms")
	}
	_, err := r.pool.Exec(ctx, sqlReplicaBeat, r.cfg.Owner, truncate(b.Host, 255), b.PID, truncate(b.Version, 128), b.TTL.Milliseconds(), b.First)
	return mapErr(err, "writing the replica heartbeat")
}

// BeatStopped marks this replica's row stopped: it is no longer live.
func (r *Runtime) BeatStopped(ctx context.Context) error {
	_, err := r.pool.Exec(ctx, sqlReplicaStopped, r.cfg.Owner)
	return mapErr(err, "marking the replica stopped")
}

// ReplicaList returns the replicas seen in the last hour and not stopped,
// live ones first, then by host.
func (r *Runtime) ReplicaList(ctx context.Context) ([]ReplicaInfo, error) {
	rows, err := r.pool.Query(ctx, sqlReplicaList, replicaListWindow.Milliseconds(), replicaListLimit)
	if err != nil {
		return nil, mapErr(err, "listing replicas")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ReplicaInfo, error) {
		var x ReplicaInfo
		err := row.Scan(&x.ID, &x.Host, &x.PID, &x.Version, &x.StartedAtMs, &x.LastSeenAtMs, &x.ExpiresAtMs, &x.Live)
		return x, err
	})
	return out, mapErr(err, "listing replicas")
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
