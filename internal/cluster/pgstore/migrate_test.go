package pgstore

import (
	"errors"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

func TestConcurrentMigratorsApplyEachMigrationOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	const migrators = 2
	results := make([][]Applied, migrators)
	errs := make([]error, migrators)
	var wg sync.WaitGroup
	for i := range migrators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = Migrate(t.Context(), db.URL, nil)
		}()
	}
	wg.Wait()
	total := 0
	for i := range migrators {
		if errs[i] != nil {
			t.Fatalf("migrator %d: %v", i, errs[i])
		}
		total += len(results[i])
	}
	if total != len(Stream()) {
		t.Fatalf("two migrators applied %d migrations in total, want %d (each exactly once)", total, len(Stream()))
	}
	var rows int
	if err := db.Pool(t).QueryRow(t.Context(), "SELECT count(*) FROM qinglong.schema_migrations").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != len(Stream()) {
		t.Fatalf("history has %d rows, want %d", rows, len(Stream()))
	}
}

func TestMigrateRerunIsANoOp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	applied, err := Migrate(t.Context(), e.url(RoleMigration), nil)
	if err != nil {
		t.Fatalf("re-run as the migration role: %v", err)
	}
	if len(applied) != 0 {
		t.Fatalf("re-run applied %v, want nothing", applied)
	}
	requireReadiness(t, e, RoleRuntime, "")
}

func TestMigrateRefusesAnEditedOrFutureHistory(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tamper, code string
	}{
		{"edited checksum", "UPDATE qinglong.schema_migrations SET checksum = 'sha256:' || repeat('a', 64)", CodeHistoryMismatch},
		{"renamed migration", "UPDATE qinglong.schema_migrations SET id = 'pg-0001-something-else' WHERE seq = 1", CodeHistoryMismatch},
		{"database ahead", "INSERT INTO qinglong.schema_migrations VALUES (9998, 'pg-9998-newer', 'sha256:' || repeat('b', 64), 0)", CodeHistoryAhead},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.exec(t, c.tamper)
			_, err := Migrate(t.Context(), e.url(RoleMigration), nil)
			var re *ReadinessError
			if !errors.As(err, &re) || re.Code != c.code {
				t.Fatalf("migrate over %s: want %s, got %v", c.name, c.code, err)
			}
		})
	}
}

func TestMigrationChecksumsAreSHA256OfTheFiles(t *testing.T) {
	t.Parallel()
	for _, m := range Stream() {
		if len(m.Checksum) != len("sha256:")+64 || m.SQL == "" {
			t.Fatalf("migration %s: checksum %q over %d bytes", m.ID, m.Checksum, len(m.SQL))
		}
	}
	if Stream()[0].ID != "pg-0001-control-schema" {
		t.Fatalf("first migration is %s", Stream()[0].ID)
	}
}
