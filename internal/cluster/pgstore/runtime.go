package pgstore

import (
	"context"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Lease bounds and the default (docs/architecture.md, "Claim").
const (
	MinLease     = time.Second
	MaxLease     = 60 * time.Second
	DefaultLease = 30 * time.Second
	// DefaultRuntimeConns covers one claim plus schedule.MaxParallel
	// concurrent commits.
	DefaultRuntimeConns = int32(schedule.MaxParallel + 1)
	// ReplicaConns is the most connections a replica opens with the
	// default pool: the runtime pool and the notice listener's own
	// connection (Listen); the maintenance pool adds maintenanceConns.
	ReplicaConns = DefaultRuntimeConns + 1
)

var ownerPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)

// RuntimeConfig configures the runtime role's store.
type RuntimeConfig struct {
	// Owner names this replica in claim_owner (1–128 of letters, digits,
	// '_', '.', ':', '-'); it must be unique among live replicas.
	Owner string
	// Lease is how long a claim lives (1–60 s, default 30 s).
	Lease time.Duration
	// RolePrefix names the roles readiness checks ("" = DefaultRolePrefix).
	RolePrefix string
	// MaxConns bounds the pool (default DefaultRuntimeConns).
	MaxConns int32
	// MinConns is how many connections the pool keeps open even while idle
	// (0–MaxConns, default 0): a scheduler that commits a burst's groups
	// side by side then finds their connections open and authenticated,
	// however long since the last burst, instead of opening them (TCP,
	// TLS, password exchange) inside its first round. The pool re-opens
	// them in the background when their lifetime ends.
	MinConns int32

	// unboundedIdle lifts the idle-in-transaction bound of this pool's
	// sessions. Only tests set it: to hold a transaction frozen for longer
	// than the bound, and show what the rest of the cluster does meanwhile.
	unboundedIdle bool
}

// WithDefaults fills zero fields with their defaults.
func (c RuntimeConfig) WithDefaults() RuntimeConfig {
	if c.Lease == 0 {
		c.Lease = DefaultLease
	}
	if c.MaxConns == 0 {
		c.MaxConns = DefaultRuntimeConns
	}
	return c
}

// Validate names the field and its allowed range.
func (c RuntimeConfig) Validate() error {
	if !ownerPattern.MatchString(c.Owner) {
		return qlerror.New(qlerror.Invalid, "runtime owner %q must be 1–128 letters, digits, '_', '.', ':' or '-', starting with a letter or digit", c.Owner)
	}
	if c.Lease < MinLease || c.Lease > MaxLease || c.Lease%time.Millisecond != 0 {
		return qlerror.New(qlerror.Invalid, "claim lease %s is outside %s–%s (whole milliseconds)", c.Lease, MinLease, MaxLease)
	}
	if c.MaxConns < 2 || c.MaxConns > 64 {
		return qlerror.New(qlerror.Invalid, "runtime pool size %d is outside 2–64", c.MaxConns)
	}
	if c.MinConns < 0 || c.MinConns > c.MaxConns {
		return qlerror.New(qlerror.Invalid, "runtime pool's kept connections %d are outside 0–%d (its size)", c.MinConns, c.MaxConns)
	}
	if err := (RolesConfig{Prefix: c.RolePrefix}).Validate(); err != nil {
		return err
	}
	return nil
}

// Runtime is the runtime role's store: schedule claims and admissions
// (schedule.Store) and the trigger status listing (schedule.StatusReader).
type Runtime struct {
	pool    *pgxpool.Pool
	cfg     RuntimeConfig
	roles   Roles
	handles *handles
}

var (
	_ schedule.Store        = (*Runtime)(nil)
	_ schedule.StatusReader = (*Runtime)(nil)
)

// OpenRuntime validates cfg and connects as the runtime role.
func OpenRuntime(ctx context.Context, url string, cfg RuntimeConfig) (*Runtime, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	statement, idle := runtimeBounds(cfg.Lease)
	if cfg.unboundedIdle {
		idle = 0
	}
	pool, err := openPool(ctx, url, cfg.MaxConns, cfg.MinConns, statement, idle)
	if err != nil {
		return nil, err
	}
	return &Runtime{pool: pool, cfg: cfg, roles: RoleNames(cfg.RolePrefix), handles: newHandles()}, nil
}

// PoolCounters reads the pool's counters since it opened: acquisitions
// that found no idle connection and waited for one to be opened or
// released, their total wait, and the connections opened (each paid the
// connection's setup: TCP, TLS, authentication).
func (r *Runtime) PoolCounters() (waits int64, waited time.Duration, opened int64) {
	st := r.pool.Stat()
	return st.EmptyAcquireCount(), st.EmptyAcquireWaitTime(), st.NewConnsCount()
}

// PoolStat reads the pool as it stands: its size and the connections in
// use and idle (no query).
func (r *Runtime) PoolStat() (size, inUse, idle int32) {
	st := r.pool.Stat()
	return st.MaxConns(), st.AcquiredConns(), st.IdleConns()
}

// Close releases the pool.
func (r *Runtime) Close() { r.pool.Close() }

// Executor says who runs cluster admissions: always remote workers.
func (r *Runtime) Executor() task.Executor { return task.RemoteWorker }

// Ready runs the readiness checks on one of the runtime's connections,
// refusing a role that may do more than the runtime role.
func (r *Runtime) Ready(ctx context.Context) error {
	return checkReadiness(ctx, r.pool, r.roles, checkRuntimeRole)
}

// CheckHistory is readiness's first schema check alone: the database's
// migration history must be exactly this binary's stream. One read of the
// history, cheap enough for a running replica to repeat every heartbeat,
// so that a `ql db migrate` of another build under it (CodeHistoryAhead),
// or a restore of an older database (CodeHistoryBehind), is seen while it
// runs, not only at its next start.
func (r *Runtime) CheckHistory(ctx context.Context) error {
	history, err := readHistory(ctx, r.pool)
	if err != nil {
		return err
	}
	return compareHistory(history, stream, true)
}

// CheckHistory is Runtime.CheckHistory on the admin role's pool: a
// command that connects only as the admin role (`ql workers`) refuses a
// database of another build before it reads or writes, as every other
// command does.
func (a *Admin) CheckHistory(ctx context.Context) error {
	history, err := readHistory(ctx, a.pool)
	if err != nil {
		return err
	}
	return compareHistory(history, stream, true)
}

// NowMs reads the database clock, the cluster's only time authority.
func (r *Runtime) NowMs(ctx context.Context) (int64, error) {
	var now int64
	if err := r.pool.QueryRow(ctx, sqlNowMs).Scan(&now); err != nil {
		return 0, mapErr(err, "reading the database clock")
	}
	return now, nil
}
