package qlimport

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

// Panel is what this import reads of a panel's data folder.
type Panel struct {
	// Dir is the data folder, DB its database file.
	Dir, DB       string
	Crons         []Cron
	Envs          []Env
	Subscriptions []Subscription
	Dependencies  []Dependency
	// Missing are the optional tables the database does not have (an
	// older panel's), each read as empty.
	Missing []string
	// Config is what the folder's config/config.sh sets, by name.
	Config Config
}

// Cron is a row of the panel's Crontabs table.
type Cron struct {
	ID                         int
	Name, Command, Schedule    string
	Disabled                   bool
	Labels                     []string
	ExtraSchedules             int
	TaskBefore, TaskAfter, Dir string
}

// Env is a row of the panel's Envs table; Disabled is its status 1.
type Env struct {
	ID                   int
	Name, Value, Remarks string
	Disabled             bool
}

// Subscription is a row of the panel's Subscriptions table.
type Subscription struct {
	ID                                                             int
	Name, Type, ScheduleType, Schedule, URL                        string
	Whitelist, Blacklist, Dependences, Branch, SubBefore, SubAfter string
	Disabled                                                       bool
}

// Dependency is a row of the panel's Dependences table: Type 0 is
// Node.js, 1 Python 3, 2 Linux; Status 3 and 4 are removing and removed.
type Dependency struct {
	ID, Type, Status int
	Name             string
}

// DBFile is where a data folder keeps the panel's database.
const DBFile = "db/database.sqlite"

// Folder is the data folder dir names: dir itself, or its data folder
// when dir is the panel's /ql (which holds data/db/database.sqlite).
func Folder(dir string) (string, error) {
	for _, d := range []string{dir, filepath.Join(dir, "data")} {
		if fi, err := os.Stat(filepath.Join(d, DBFile)); err == nil && fi.Mode().IsRegular() {
			return d, nil
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", notPanel(dir, "no such folder")
	}
	return "", notPanel(dir, "it holds no "+DBFile)
}

// Read reads the panel's folder dir. The database is opened read-only and
// immutable: SQLite neither writes it nor takes a lock on it, so a panel
// still running is never held up by it; as immutable it reads no journal
// either, so a database with one beside it (a write in progress) is
// refused rather than read half-written.
func Read(ctx context.Context, dir string) (Panel, error) {
	data, err := Folder(dir)
	if err != nil {
		return Panel{}, err
	}
	p := Panel{Dir: data, DB: filepath.Join(data, DBFile)}
	for _, side := range []string{"-journal", "-wal"} {
		if fi, err := os.Stat(p.DB + side); err == nil && fi.Size() > 0 {
			return Panel{}, busy(filepath.Base(p.DB + side))
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Panel{}, fmt.Errorf("the panel's database: %w", err)
		}
	}
	if err := readDB(ctx, &p, func() error { return notPanel(dir, DBFile+" is no SQLite database") }); err != nil {
		return Panel{}, err
	}
	p.Config = readConfig(data)
	return p, nil
}

// ReadDatabase reads a panel's database file alone, one uploaded with no
// folder beside it (name is the file's name as its sender gave it): its
// scripts and settings are not there to note. It is opened as Read opens
// one.
func ReadDatabase(ctx context.Context, file, name string) (Panel, error) {
	p := Panel{DB: file}
	if err := readDB(ctx, &p, func() error { return notDatabase(name) }); err != nil {
		return Panel{}, err
	}
	return p, nil
}

// readDB reads the database p.DB into p, read-only and immutable;
// refused is the refusal of a file that is no SQLite database.
func readDB(ctx context.Context, p *Panel, refused func() error) error {
	abs, err := filepath.Abs(p.DB)
	if err != nil {
		return err
	}
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: "mode=ro&immutable=1"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fmt.Errorf("open the panel's database: %w", err)
	}
	defer db.Close()
	r := reader{db: db, ctx: ctx}
	if err := r.tables(); err != nil {
		if strings.Contains(err.Error(), "not a database") {
			return refused()
		}
		return fmt.Errorf("read the panel's database: %w", err)
	}
	for _, step := range []func(*Panel) error{r.crons, r.envs, r.subscriptions, r.dependencies} {
		if err := step(p); err != nil {
			return err
		}
	}
	return nil
}

// reader reads the tables of one database.
type reader struct {
	ctx context.Context
	db  *sql.DB
	// columns are each table's columns.
	columns map[string]map[string]bool
}

func (r *reader) tables() error {
	r.columns = map[string]map[string]bool{}
	rows, err := r.db.QueryContext(r.ctx, qTables)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, n := range names {
		cols, err := r.db.QueryContext(r.ctx, qColumns, n)
		if err != nil {
			return err
		}
		r.columns[n] = map[string]bool{}
		for cols.Next() {
			var c string
			if err := cols.Scan(&c); err != nil {
				cols.Close()
				return err
			}
			r.columns[n][c] = true
		}
		if err := errors.Join(cols.Err(), cols.Close()); err != nil {
			return err
		}
	}
	return nil
}

// selectOf is the query of table's columns, those of optional it lacks
// read as NULL; it refuses a table or a required column missing.
func (r *reader) selectOf(table string, required, optional []string, order string) (string, error) {
	have, ok := r.columns[table]
	if !ok {
		return "", unknownSchema(table, "")
	}
	var cols []string
	for _, c := range required {
		if !have[c] {
			return "", unknownSchema(table, c)
		}
		cols = append(cols, `"`+c+`"`)
	}
	for _, c := range optional {
		if have[c] {
			cols = append(cols, `"`+c+`"`)
		} else {
			cols = append(cols, "NULL")
		}
	}
	return "SELECT " + strings.Join(cols, ", ") + ` FROM "` + table + `" ORDER BY ` + order, nil
}

// each runs the query of table and calls scan for each row.
func (r *reader) each(table string, required, optional []string, order string, scan func(*sql.Rows) error) error {
	q, err := r.selectOf(table, required, optional, order)
	if err != nil {
		return err
	}
	rows, err := r.db.QueryContext(r.ctx, q)
	if err != nil {
		return fmt.Errorf("read the panel's %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("read the panel's %s: %w", table, err)
		}
	}
	return rows.Err()
}

// optionalTable reports whether table is there, noting it when not.
func (r *reader) optionalTable(p *Panel, table string) bool {
	if _, ok := r.columns[table]; ok {
		return true
	}
	p.Missing = append(p.Missing, table)
	return false
}

func (r *reader) crons(p *Panel) error {
	return r.each("Crontabs", []string{"id", "name", "command", "schedule", "isDisabled"},
		[]string{"labels", "extra_schedules", "task_before", "task_after", "work_dir"}, "id", func(rows *sql.Rows) error {
			var c Cron
			var name, schedule, labels, extra, before, after, dir sql.NullString
			var disabled sql.NullInt64
			if err := rows.Scan(&c.ID, &name, &c.Command, &schedule, &disabled, &labels, &extra, &before, &after, &dir); err != nil {
				return err
			}
			c.Name, c.Schedule, c.Disabled = name.String, schedule.String, disabled.Int64 == 1
			c.TaskBefore, c.TaskAfter, c.Dir = before.String, after.String, dir.String
			c.Labels = jsonStrings(labels.String)
			var schedules []json.RawMessage
			if json.Unmarshal([]byte(extra.String), &schedules) == nil {
				c.ExtraSchedules = len(schedules)
			}
			p.Crons = append(p.Crons, c)
			return nil
		})
}

func (r *reader) envs(p *Panel) error {
	order := "id"
	if r.columns["Envs"]["position"] {
		// The panel lists, and joins, a name's values by position, the
		// highest first.
		order = "position DESC, id"
	}
	return r.each("Envs", []string{"id", "name", "value", "status"}, []string{"remarks"}, order, func(rows *sql.Rows) error {
		var e Env
		var name, value, remarks sql.NullString
		var status sql.NullInt64
		if err := rows.Scan(&e.ID, &name, &value, &status, &remarks); err != nil {
			return err
		}
		e.Name, e.Value, e.Remarks, e.Disabled = name.String, value.String, remarks.String, status.Int64 == 1
		p.Envs = append(p.Envs, e)
		return nil
	})
}

func (r *reader) subscriptions(p *Panel) error {
	if !r.optionalTable(p, "Subscriptions") {
		return nil
	}
	return r.each("Subscriptions", []string{"id", "name", "type", "schedule", "url", "whitelist", "blacklist", "branch", "is_disabled"},
		[]string{"schedule_type", "dependences", "sub_before", "sub_after"}, "id", func(rows *sql.Rows) error {
			var s Subscription
			var f [11]sql.NullString
			var disabled sql.NullInt64
			if err := rows.Scan(&s.ID, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &disabled, &f[7], &f[8], &f[9], &f[10]); err != nil {
				return err
			}
			s.Name, s.Type, s.Schedule, s.URL, s.Whitelist, s.Blacklist, s.Branch = f[0].String, f[1].String, f[2].String, f[3].String, f[4].String, f[5].String, f[6].String
			s.ScheduleType, s.Dependences, s.SubBefore, s.SubAfter = f[7].String, f[8].String, f[9].String, f[10].String
			s.Disabled = disabled.Int64 == 1
			p.Subscriptions = append(p.Subscriptions, s)
			return nil
		})
}

func (r *reader) dependencies(p *Panel) error {
	if !r.optionalTable(p, "Dependences") {
		return nil
	}
	return r.each("Dependences", []string{"id", "name", "type", "status"}, nil, "id", func(rows *sql.Rows) error {
		var d Dependency
		var name sql.NullString
		var typ, status sql.NullInt64
		if err := rows.Scan(&d.ID, &name, &typ, &status); err != nil {
			return err
		}
		d.Name, d.Type, d.Status = name.String, int(typ.Int64), int(status.Int64)
		p.Dependencies = append(p.Dependencies, d)
		return nil
	})
}

// jsonStrings is a JSON array of strings, nil for anything else.
func jsonStrings(s string) []string {
	var out []string
	if json.Unmarshal([]byte(s), &out) != nil {
		return nil
	}
	return out
}
