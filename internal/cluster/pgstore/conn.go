package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// querier is what both a connection and a transaction offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// connectTimeout bounds establishing one connection.
const connectTimeout = 10 * time.Second

// connect opens a single connection (migrations, roles, readiness: one
// session). It carries the safe search_path but no timeouts: migrations may
// legitimately run long, and the other two run short statements anyway.
func connect(ctx context.Context, url string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, urlError(url, err)
	}
	cfg.ConnectTimeout = connectTimeout
	applySession(&cfg.Config, 0, 0)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, mapErr(err, "connecting to PostgreSQL")
	}
	return conn, nil
}

// openPool opens and pings a pool of at most maxConns connections, keeping
// minConns open while idle, each bounded by the statement and
// idle-in-transaction timeouts given.
func openPool(ctx context.Context, url string, maxConns, minConns int32, statement, idle time.Duration) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, urlError(url, err)
	}
	cfg.ConnConfig.ConnectTimeout = connectTimeout
	applySession(&cfg.ConnConfig.Config, statement, idle)
	cfg.MaxConns = maxConns
	cfg.MinConns = minConns
	// No liveness ping on acquire: pgxpool would silently replace a
	// connection whose backend was terminated, and the replica would never
	// learn that it lost the database. Without the ping the next statement
	// fails with a connection-class error, which takes the replica out of
	// service until a fresh activation (new pool, readiness, recovery)
	// succeeds (docs/architecture.md, "Rounds and the lifecycle").
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, mapErr(err, "opening the connection pool")
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, mapErr(err, "connecting to PostgreSQL")
	}
	return pool, nil
}
