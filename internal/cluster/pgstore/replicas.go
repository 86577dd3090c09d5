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
	// StartedAtMs is the row's start as the answer to this process's
	// first beat gave it; 0 at that first beat, which (re)starts the row,
	// even one a previous process under the same id marked stopped.
	StartedAtMs int64
}

// BeatAnswer is what a heartbeat found and did.
type BeatAnswer struct {
	// StartedAtMs is the row's start when the beat wrote it; 0 when it did
	// not: the row was restarted since by another process under the same
	// id (Prior names it), or this process marked it stopped.
	StartedAtMs int64
	// PriorHost and PriorPID name the process the row named before the
	// beat ("" and 0 when there was no row); PriorLive says it was
	// neither stopped nor expired then.
	PriorHost string
	PriorPID  int64
	PriorLive bool
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
// clock (sql/replicas.sql, ReplicaBeat, says which row a beat may write).
func (r *Runtime) Beat(ctx context.Context, b ReplicaBeat) (BeatAnswer, error) {
	if b.TTL < time.Millisecond || b.Host == "" || b.Version == "" || b.PID <= 0 {
		return BeatAnswer{}, qlerror.New(qlerror.Invalid, "replica heartbeat needs a host, a version, a pid and a time to live of at least 1 ms")
	}
	var started *int64
	if b.StartedAtMs != 0 {
		started = &b.StartedAtMs
	}
	var a BeatAnswer
	var wrote, priorPID *int64
	var priorHost *string
	err := r.pool.QueryRow(ctx, sqlReplicaBeat, r.cfg.Owner, truncate(b.Host, 255), b.PID, truncate(b.Version, 128), b.TTL.Milliseconds(), started).
		Scan(&wrote, &priorHost, &priorPID, &a.PriorLive)
	if err != nil {
		return BeatAnswer{}, mapErr(err, "writing the replica heartbeat")
	}
	a.StartedAtMs, a.PriorHost, a.PriorPID = derefInt(wrote), deref(priorHost), derefInt(priorPID)
	return a, nil
}

// BeatStopped marks this replica's row stopped (the row whose start its
// beats kept): it is no longer live.
func (r *Runtime) BeatStopped(ctx context.Context, startedAtMs int64) error {
	_, err := r.pool.Exec(ctx, sqlReplicaStopped, r.cfg.Owner, startedAtMs)
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
