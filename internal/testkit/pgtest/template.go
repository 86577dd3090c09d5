package pgtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// prepareTimeout bounds building a template: creating it, prepare, and
// closing it. A prepare may fill the database with hundreds of thousands
// of rows (pgstore's claim layouts), which took over a minute, as long as
// adminTimeout allows a single CREATE DATABASE, on a loaded machine
// running several tests beside it; every test of that template then
// failed. The test binary's own timeout is the bound that matters.
const prepareTimeout = 10 * time.Minute

// Prepare brings an empty database (given by its superuser URL) to the state
// the tests of a package start from, e.g. by running the schema migrations.
// It must close every connection it opened before it returns: PostgreSQL
// copies a template only while nobody is connected to it.
type Prepare func(ctx context.Context, url string) error

// template is one prepared database of a server, built at most once.
type template struct {
	once sync.Once
	name string
	err  error
}

var (
	templatesMu sync.Mutex
	templates   = map[*Srv]map[string]*template{}
)

// NewPreparedDatabase is NewDatabase for a database that starts as prepare
// leaves an empty one, on the shared server.
func NewPreparedDatabase(t testing.TB, key string, prepare Prepare) *Database {
	t.Helper()
	return Server(t).NewPreparedDatabase(t, key, prepare)
}

// NewPreparedDatabase creates a uniquely named database on s as a copy of a
// template that prepare built once per server and key. Copying a template
// costs one CREATE DATABASE; running the schema migrations into every
// test's database cost each test as much again, which on a suite of a
// hundred tests was minutes.
//
// The copy is exactly what prepare made: CREATE DATABASE … TEMPLATE copies
// every object, owner and grant inside the database. Settings attached to
// the database itself (ALTER DATABASE … SET, the database's ACL) are not
// copied, so prepare must not rely on them; the tests that check what the
// migrations do from nothing keep using NewDatabase.
func (s *Srv) NewPreparedDatabase(t testing.TB, key string, prepare Prepare) *Database {
	t.Helper()
	tpl := s.template(key)
	tpl.once.Do(func() { tpl.name, tpl.err = s.buildTemplate(t.Context(), key, prepare) })
	if tpl.err != nil {
		t.Fatalf("pgtest: preparing the %q template: %v", key, tpl.err)
	}
	return s.newDatabase(t, " TEMPLATE "+pgx.Identifier{tpl.name}.Sanitize())
}

func (s *Srv) template(key string) *template {
	templatesMu.Lock()
	defer templatesMu.Unlock()
	byKey := templates[s]
	if byKey == nil {
		byKey = map[string]*template{}
		templates[s] = byKey
	}
	tpl := byKey[key]
	if tpl == nil {
		tpl = &template{}
		byKey[key] = tpl
	}
	return tpl
}

// buildTemplate creates the template database, prepares it and closes it to
// connections, so no test can change what later copies start from. It lives
// as long as the server.
func (s *Srv) buildTemplate(ctx context.Context, key string, prepare Prepare) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), prepareTimeout)
	defer cancel()
	name := databaseName("template "+key, dbSeq.Add(1))
	ident := pgx.Identifier{name}.Sanitize()
	if err := s.adminExec(ctx, "CREATE DATABASE "+ident); err != nil {
		return "", err
	}
	if err := prepare(ctx, s.SuperuserURL(name)); err != nil {
		return "", fmt.Errorf("prepare: %w", err)
	}
	if err := s.adminExec(ctx, "ALTER DATABASE "+ident+" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"); err != nil {
		return "", err
	}
	return name, nil
}

// forgetTemplates drops the record of a stopped server's templates (they
// went with its data directory).
func forgetTemplates(s *Srv) {
	templatesMu.Lock()
	defer templatesMu.Unlock()
	delete(templates, s)
}
