package faults

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// setupTimeout bounds schema installation and publishing.
const setupTimeout = 2 * time.Minute

// gateDB is a migrated QingLong database with its five roles. It names no
// server: after a promotion the same database is reached on the new
// primary.
type gateDB struct {
	name     string
	prefix   string
	password string // the same random one for every role; never logged
}

// installGateDB migrates database name on srv (creating it when create
// is set) and installs the roles. An empty prefix picks one unique to this
// call, since roles are server-wide and gates share servers.
func installGateDB(t testing.TB, srv *pgtest.Srv, name string, create bool, prefix string) gateDB {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), setupTimeout)
	defer cancel()
	if prefix == "" {
		prefix = "fg" + randomHex(t, 4) + "_"
	}
	g := gateDB{name: name, prefix: prefix, password: randomHex(t, 16)}
	if create {
		conn, err := pgx.Connect(ctx, srv.SuperuserURL("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
		conn.Close(context.Background())
		if err != nil {
			t.Fatalf("create database %s: %v", name, err)
		}
	}
	if _, err := pgstore.Migrate(ctx, srv.SuperuserURL(name), nil); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	cfg := pgstore.RolesConfig{Prefix: g.prefix, Passwords: map[pgstore.RoleKind]string{}}
	for _, k := range pgstore.RoleKinds {
		cfg.Passwords[k] = g.password
	}
	if err := pgstore.EnsureRoles(ctx, srv.SuperuserURL(name), cfg); err != nil {
		t.Fatalf("roles: %v", err)
	}
	return g
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// url connects to the database on srv as one of the roles.
func (g gateDB) url(srv *pgtest.Srv, k pgstore.RoleKind) string {
	u, err := url.Parse(srv.SuperuserURL(g.name))
	if err != nil {
		panic(err) // SuperuserURL always parses
	}
	u.User = url.UserPassword(pgstore.RoleNames(g.prefix).Name(k), g.password)
	return u.String()
}

// userURL is url without the password, for processes that take it from
// PGPASSWORD.
func (g gateDB) userURL(srv *pgtest.Srv, k pgstore.RoleKind) string {
	u, err := url.Parse(srv.SuperuserURL(g.name))
	if err != nil {
		panic(err) // SuperuserURL always parses
	}
	u.User = url.User(pgstore.RoleNames(g.prefix).Name(k))
	return u.String()
}

// superuser opens a superuser connection to the database on srv, closed
// on cleanup: the gates read durable facts with it, outside every role.
func (g gateDB) superuser(t testing.TB, srv *pgtest.Srv) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), setupTimeout)
	defer cancel()
	c, err := pgx.Connect(ctx, srv.SuperuserURL(g.name))
	if err != nil {
		t.Fatalf("superuser connection: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// published is one project with one enabled task and its triggers.
type published struct {
	ProjectID string
	Task      task.Revision
	Triggers  []trigger.Revision
}

// publish creates, as the admin role, project name with one command task
// and one enabled fire_once cron trigger (UTC) per expression.
func (g gateDB) publish(t testing.TB, srv *pgtest.Srv, name string, expressions ...string) published {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), setupTimeout)
	defer cancel()
	admin, err := pgstore.OpenAdmin(ctx, g.url(srv, pgstore.RoleAdmin))
	if err != nil {
		t.Fatalf("open admin: %v", err)
	}
	defer admin.Close()
	svc := catalog.Service{Store: admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	p := project.Project{ID: ids.New(), Name: name, Status: project.Active}
	if _, err := admin.ProjectSave(ctx, p); err != nil {
		t.Fatalf("create project: %v", err)
	}
	tk, _, err := svc.PublishTask(ctx, p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true, Command: task.Command{
		Mode: task.ModeArgv, Path: "/usr/bin/true", TimeoutMs: 60_000,
	}})
	if err != nil {
		t.Fatalf("publish task: %v", err)
	}
	out := published{ProjectID: p.ID, Task: tk}
	for i, expr := range expressions {
		spec := trigger.Spec{Name: fmt.Sprintf("tick-%d", i), Enabled: true,
			Cron: trigger.Cron{Expression: expr, Timezone: "UTC", MisfirePolicy: trigger.FireOnce}}
		tg, _, err := svc.PublishTrigger(ctx, p.ID, ids.New(), tk, 0, ids.New(), spec)
		if err != nil {
			t.Fatalf("publish trigger %q: %v", expr, err)
		}
		out.Triggers = append(out.Triggers, tg)
	}
	return out
}
