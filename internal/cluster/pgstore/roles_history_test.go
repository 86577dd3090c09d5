package pgstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// An operator who goes back to an older binary may run its `ql db roles`
// on the database the newer build migrated (before restoring the backup,
// or instead of it). Its grant matrix does not know the newer tables, so
// installing it would revoke every role's grants on them while the newer
// replicas still serve. It must refuse before it changes any role, grant
// or password, naming the migration it does not know and the last it
// knows; on a database not yet migrated as far as its binary (roles
// before `ql db migrate`, as every install and upgrade does) it runs.
func TestRolesOfAnOlderBuildChangeNothingOnADatabaseANewerBuildMigrated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	newest := Stream()[len(Stream())-1]

	// Behind this binary: its last migration not applied yet.
	e.exec(t, `DELETE FROM qinglong.schema_migrations WHERE seq = $1`, newest.Seq)
	if err := EnsureRoles(t.Context(), e.db.URL, RolesConfig{Prefix: e.prefix()}); err != nil {
		t.Fatalf("roles on a database not migrated as far as this binary: %v; want them installed, as before `ql db migrate`", err)
	}
	e.exec(t, `INSERT INTO qinglong.schema_migrations VALUES ($1, $2, $3, 0)`, newest.Seq, newest.ID, newest.Checksum)

	// Ahead of this binary: what a newer build's migrate and roles left.
	newerID := fmt.Sprintf("pg-%04d-from-a-newer-build", newest.Seq+1)
	e.exec(t, `CREATE TABLE qinglong.from_a_newer_build (id bigint PRIMARY KEY)`)
	e.exec(t, `GRANT SELECT ON qinglong.from_a_newer_build TO `+quoteIdent(e.roles.Runtime))
	e.exec(t, `INSERT INTO qinglong.schema_migrations VALUES ($1, $2, 'sha256:'||repeat('c', 64), 0)`, newest.Seq+1, newerID)

	err := EnsureRoles(t.Context(), e.db.URL, RolesConfig{Prefix: e.prefix(),
		Passwords: map[RoleKind]string{RoleRuntime: "a-password-never-set"}})
	var re *ReadinessError
	if !errors.As(err, &re) || re.Code != CodeHistoryAhead || !strings.Contains(err.Error(), newerID) || !strings.Contains(err.Error(), newest.ID) {
		t.Fatalf("roles of an older build on a newer schema: %v; want %s naming %s and %s", err, CodeHistoryAhead, newerID, newest.ID)
	}
	var kept bool
	if err := e.super.QueryRow(t.Context(), `SELECT has_table_privilege($1, 'qinglong.from_a_newer_build', 'SELECT')`, e.roles.Runtime).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if !kept {
		t.Error("the refused roles revoked the runtime role's grant on the newer build's table")
	}
	c, err := pgx.Connect(t.Context(), e.url(RoleRuntime))
	if err != nil {
		t.Fatalf("the runtime role's password changed under a refused roles: %v", err)
	}
	c.Close(t.Context())
}
