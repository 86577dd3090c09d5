package pgstore

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// safeSearchPath is every QingLong role's and connection's search_path.
// Without it an unqualified operator or function (`extract(...) * 1000`)
// resolves against schemas listed before pg_catalog, and an exact-match
// operator planted there by anyone who may CREATE in such a schema would
// run as our role and could move the cluster clock. pg_temp is named last
// so temporary objects can never shadow anything either.
const safeSearchPath = "pg_catalog, pg_temp"

// Session bounds. A transaction left open by a frozen or partitioned
// replica keeps its row locks and, under SERIALIZABLE, pins the predicate
// locks of every transaction that overlapped it, until the server ends it;
// these bound how long that can last. They are the ceilings `ql db roles`
// installs per role and readiness enforces; the runtime's connections use
// lower values when the claim lease is short (runtimeBounds).
const (
	runtimeStatementTimeout = 10 * time.Second
	runtimeIdleTimeout      = 5 * time.Second
	// A publish reads and writes many rows in one SERIALIZABLE transaction,
	// so its statements may take longer; idle time inside it is still only
	// the client's own work between statements.
	adminStatementTimeout = 30 * time.Second
	adminIdleTimeout      = 10 * time.Second
	// A retention batch deletes at most a few hundred Runs with their
	// logs; a minute bounds even one whose logs are large.
	maintenanceStatementTimeout = time.Minute
	maintenanceIdleTimeout      = 10 * time.Second
)

// There is no separate lock_timeout: statement_timeout already bounds a
// lock wait, and a shorter lock bound would fail admissions queued behind a
// large publish that would have completed within the statement bound.

// Names of the bounded settings.
const (
	settingStatementTimeout = "statement_timeout"
	settingIdleTimeout      = "idle_in_transaction_session_timeout"
)

// roleBound is one timeout a role must carry: present, non-zero (zero
// disables it) and at most max.
type roleBound struct {
	setting string
	max     time.Duration
}

// roleBounds are the per-role timeouts. The migration role has none: it
// runs schema changes and backfills, started by an operator, which may
// legitimately take long. worker_ingress, which may not log in, keeps the
// runtime's bounds so that a login given back to it by hand is bounded
// from its first transaction.
var roleBounds = map[RoleKind][]roleBound{
	RoleAdmin:         {{settingStatementTimeout, adminStatementTimeout}, {settingIdleTimeout, adminIdleTimeout}},
	RoleRuntime:       {{settingStatementTimeout, runtimeStatementTimeout}, {settingIdleTimeout, runtimeIdleTimeout}},
	RoleWorkerIngress: {{settingStatementTimeout, runtimeStatementTimeout}, {settingIdleTimeout, runtimeIdleTimeout}},
	RoleMaintenance:   {{settingStatementTimeout, maintenanceStatementTimeout}, {settingIdleTimeout, maintenanceIdleTimeout}},
}

// runtimeBounds are the runtime connection's statement and idle timeouts:
// the role ceilings, or half the lease when that is lower. Nothing a
// transaction does after its claim expired can be committed anyway, and a
// bound under the lease lets other replicas take over in time.
func runtimeBounds(lease time.Duration) (statement, idle time.Duration) {
	return min(runtimeStatementTimeout, lease/2), min(runtimeIdleTimeout, lease/2)
}

// TCP keepalive: a peer that vanished (host down, network partition) is
// noticed after keepaliveIdle + keepaliveCount*keepaliveInterval = 25 s of
// silence, under the default 30 s lease, by both ends: the server then ends
// the backend (releasing its locks), the client fails its statement.
const (
	keepaliveIdle     = 10 * time.Second
	keepaliveInterval = 5 * time.Second
	keepaliveCount    = 3
	// tcpUserTimeout bounds data left unacknowledged by the peer, which
	// keepalives do not cover while the server is sending.
	tcpUserTimeout = keepaliveIdle + keepaliveCount*keepaliveInterval
)

// minPredLocksPerTransaction is the smallest max_pred_locks_per_transaction
// readiness accepts: PostgreSQL's default. The shared predicate-lock table
// holds this many entries per connection slot; while one SERIALIZABLE
// transaction stays open, every overlapping one that commits keeps its
// locks there. Admissions take no predicate locks (sql/admission.sql says why),
// so only publishes fill it, and they are few and bounded by the admin
// role's timeouts. A server tuned below the default is refused because a
// frozen publish would then exhaust the table within a handful of others.
const minPredLocksPerTransaction = 64

// applySession makes every connection QingLong opens safe and bounded: the
// fixed search_path, short keepalives at both ends, and the given timeouts
// (none when zero). Values in the URL are overridden.
func applySession(cfg *pgconn.Config, statement, idle time.Duration) {
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	p := cfg.RuntimeParams
	p["search_path"] = safeSearchPath
	// Every transaction that needs more says so when it begins (publishing
	// SERIALIZABLE, admission REPEATABLE READ); the autocommit claim and the
	// reads must not inherit a serializable default from the server or the
	// role, whose predicate locks would outlive them (docs/architecture.md,
	// "Admission").
	p["default_transaction_isolation"] = "read committed"
	p["tcp_keepalives_idle"] = seconds(keepaliveIdle)
	p["tcp_keepalives_interval"] = seconds(keepaliveInterval)
	p["tcp_keepalives_count"] = strconv.Itoa(keepaliveCount)
	p["tcp_user_timeout"] = millis(tcpUserTimeout)
	if statement > 0 {
		p[settingStatementTimeout] = millis(statement)
	}
	if idle > 0 {
		p[settingIdleTimeout] = millis(idle)
	}
	dialer := &net.Dialer{
		Timeout: connectTimeout,
		KeepAliveConfig: net.KeepAliveConfig{
			Enable: true, Idle: keepaliveIdle, Interval: keepaliveInterval, Count: keepaliveCount,
		},
	}
	cfg.DialFunc = dialer.DialContext
}

func seconds(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }

func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// RoleSummary says in one line what a role may do and how its sessions
// are bounded, for `ql db roles`.
func RoleSummary(k RoleKind) string {
	var what string
	switch k {
	case RoleMigration:
		what = "owns the schema (the only role that may change it)"
	case RoleAdmin:
		what = "publishes projects, tasks and triggers; creates, drains and revokes worker credentials"
	case RoleRuntime:
		what = "claims schedules and admits runs; serves the worker ingress (sessions, grants, leases, logs) and sweeps expired leases"
	case RoleMaintenance:
		what = "retention: deletes finished runs with their attempts, events and log chunks, and old logs (the only role that may)"
	default:
		what = "the worker ingress runs inside each replica as the runtime role; CONNECT and USAGE on the schema only, no table"
	}
	var b strings.Builder
	b.WriteString(what + "; search_path " + safeSearchPath)
	for _, bound := range roleBounds[k] {
		b.WriteString("; " + bound.setting + " " + pgDuration(bound.max))
	}
	return b.String()
}
