package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// databaseBefore is a new database migrated up to, not including, the
// migration whose id starts with id, and a connection to it: an upgrade
// test writes the rows an older schema held, then migrates the rest.
func databaseBefore(t *testing.T, id string) (string, *pgx.Conn) {
	t.Helper()
	ctx := t.Context()
	db := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	if err := ensureSchema(ctx, conn); err != nil {
		t.Fatal(err)
	}
	for _, m := range Stream() {
		if strings.HasPrefix(m.ID, id) {
			return db.URL, conn
		}
		if err := applyMigration(ctx, conn, m); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("the stream has no migration %s", id)
	return "", nil
}
