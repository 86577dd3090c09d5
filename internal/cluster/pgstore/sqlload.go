package pgstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// Every static statement lives in sql/*.sql as a block:
//
//	-- name: StatementName
//	-- What the statement is for and which fence or invariant it enforces.
//	SELECT ...
//
// A block runs to the next "-- name:" (or "-- fragment:") line or the end
// of the file; its leading comment is required and stays in the file (the
// text sent to the server starts at the first line of SQL). A fragment
// block ("-- fragment: Name") is SQL that several statements share word
// for word; a statement includes it as {{Name}}, expanded at load, and a
// fragment no statement includes is an error like a statement nothing
// binds. Go code holds each statement in
// a named variable (sql.go) bound by stmt or namedStmt, which panic on an
// unknown name: the package cannot even initialise with a statement
// missing, and TestEverySQLBlockIsBound fails when a block is bound by
// nothing. Loading parses text only; it starts nothing.
//
//go:embed sql/*.sql
var sqlFiles embed.FS

// ClockMsSQL is the database clock in UTC milliseconds, the only time
// authority of the cluster. Blocks write it as {{now_ms}}. It uses only
// pg_catalog built-ins, which the fixed search_path (session.go) resolves
// before anything else, so no object planted in another schema can move it.
const ClockMsSQL = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`

// sqlTemplates are the only substitutions a block may use.
// {{read_project_env}} is the read a worker names to be granted a project's
// env, as a SQL string: the statements deciding which sessions may take a
// Run of a project with env compare it with the reads the worker sent, so
// they name it through the constant the worker sends, never by spelling.
var sqlTemplates = map[string]string{
	"{{now_ms}}":           ClockMsSQL,
	"{{read_project_env}}": sqlString(workerproto.ReadProjectEnv),
}

// sqlString is s as a SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

var (
	blockName = regexp.MustCompile(`^-- (name|fragment): ([A-Z][A-Za-z0-9]*)$`)
	// include finds a statement's fragment inclusions and templates.
	include = regexp.MustCompile(`\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`)
	// placeholder finds candidate parameter names; pgx's own lexer decides
	// which are parameters (not in a string, a quoted name or a comment).
	placeholder = regexp.MustCompile(`@([a-z_][a-z0-9_]*)`)
)

// statements are the parsed blocks of sqlFiles by name.
var statements = mustLoadStatements(sqlFiles)

func mustLoadStatements(fsys fs.FS) map[string]string {
	out, err := loadStatements(fsys)
	if err != nil {
		panic("pgstore: " + err.Error())
	}
	return out
}

// loadStatements reads every sql/*.sql file of fsys. A file that is not a
// sequence of well-formed, documented, uniquely named blocks is an error.
func loadStatements(fsys fs.FS) (map[string]string, error) {
	files, err := fs.Glob(fsys, "sql/*.sql")
	if err != nil {
		return nil, err
	}
	blocks := map[string]*sqlBlock{}
	for _, file := range files {
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		if err := parseBlocks(file, string(b), blocks); err != nil {
			return nil, err
		}
	}
	return expandBlocks(blocks)
}

// expandTemplates substitutes the templates of a fragment, which finish
// has checked uses nothing else.
func expandTemplates(text string) string {
	for from, to := range sqlTemplates {
		text = strings.ReplaceAll(text, from, to)
	}
	return text
}

// expandBlocks substitutes the templates and fragments of every statement
// block and returns the statements by name.
func expandBlocks(blocks map[string]*sqlBlock) (map[string]string, error) {
	out := map[string]string{}
	included := map[string]bool{}
	for name, b := range blocks {
		if b.fragment {
			continue
		}
		var unknown []string
		text := include.ReplaceAllStringFunc(b.text, func(ref string) string {
			if to, ok := sqlTemplates[ref]; ok {
				return to
			}
			inner := ref[2 : len(ref)-2]
			if f, ok := blocks[inner]; ok && f.fragment {
				included[inner] = true
				return expandTemplates(f.text)
			}
			unknown = append(unknown, ref)
			return ref
		})
		if strings.Contains(text, "{{") || strings.Contains(text, "}}") {
			return nil, fmt.Errorf("%s uses an unknown template or fragment %v; templates: %s; fragments are -- fragment: blocks (which may not include others)", b.where(), unknown, strings.Join(slices.Sorted(maps.Keys(sqlTemplates)), ", "))
		}
		out[name] = text
	}
	for name, b := range blocks {
		if b.fragment && !included[name] {
			return nil, fmt.Errorf("%s is included by no statement; remove it or write {{%s}} where it belongs", b.where(), name)
		}
	}
	return out, nil
}

// sqlBlock is one block being read.
type sqlBlock struct {
	name, file  string
	line        int
	fragment    bool
	documented  bool
	body        []string
	inStatement bool
	// text is the finished block's SQL, before expansion.
	text string
}

func (b *sqlBlock) where() string {
	kind := "statement"
	if b.fragment {
		kind = "fragment"
	}
	return fmt.Sprintf("%s:%d: %s %s", b.file, b.line, kind, b.name)
}

func parseBlocks(file, text string, out map[string]*sqlBlock) error {
	var cur *sqlBlock
	flush := func() error {
		if cur == nil {
			return nil
		}
		return cur.finish(out)
	}
	for i, line := range strings.Split(text, "\n") {
		if m := blockName.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			if err := flush(); err != nil {
				return err
			}
			if _, dup := out[m[2]]; dup {
				return fmt.Errorf("%s:%d: statement %s is defined twice", file, i+1, m[2])
			}
			cur = &sqlBlock{name: m[2], file: file, line: i + 1, fragment: m[1] == "fragment"}
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "-- name:") || strings.HasPrefix(t, "-- fragment:") {
			return fmt.Errorf("%s:%d: malformed block name %q; write -- name: StatementName (or -- fragment: FragmentName)", file, i+1, line)
		}
		if cur == nil {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
				return fmt.Errorf("%s:%d: SQL outside a named block", file, i+1)
			}
			continue
		}
		cur.add(line)
	}
	return flush()
}

func (b *sqlBlock) add(line string) {
	t := strings.TrimSpace(line)
	if !b.inStatement && strings.HasPrefix(t, "--") {
		b.documented = true
		return
	}
	if !b.inStatement && t == "" {
		return
	}
	b.inStatement = true
	b.body = append(b.body, strings.TrimRight(line, " \t\r"))
}

func (b *sqlBlock) finish(out map[string]*sqlBlock) error {
	if !b.documented {
		return fmt.Errorf("%s has no comment saying what it is for and which invariant it enforces", b.where())
	}
	b.text = strings.TrimSpace(strings.Join(b.body, "\n"))
	if b.text == "" {
		return fmt.Errorf("%s has no SQL", b.where())
	}
	if b.fragment {
		// A fragment's templates are expanded with the statement that
		// includes it; a fragment inside a fragment is not.
		for _, m := range include.FindAllStringSubmatch(b.text, -1) {
			if _, ok := sqlTemplates[m[0]]; !ok {
				return fmt.Errorf("%s includes %s; fragments may use templates only", b.where(), m[0])
			}
		}
	}
	out[b.name] = b
	return nil
}

// stmt is the statement named name, with positional ($n) parameters.
func stmt(name string) string {
	s, ok := statements[name]
	if !ok {
		panic("pgstore: no SQL block named " + name + " in sql/*.sql")
	}
	if _, _, err := positional(s); err == nil {
		panic("pgstore: statement " + name + " has @name parameters; bind it with namedStmt")
	}
	return s
}

// namedStmt is the statement named name, written with @name parameters,
// as the positional text PostgreSQL receives and the parameter names by
// position. The rewriting is pgx's own (pgx.NamedArgs), done once here
// instead of on every call: the statement's wire text then has a name of
// its own (fault tests hold a connection on it) and the hot admission path
// does not lex 26 placeholders per call. Bind arguments with args.
func namedStmt(name string) (string, sqlParams) {
	s, ok := statements[name]
	if !ok {
		panic("pgstore: no SQL block named " + name + " in sql/*.sql")
	}
	sql, params, err := positional(s)
	if err != nil {
		panic(fmt.Sprintf("pgstore: statement %s: %v", name, err))
	}
	return sql, params
}

// positional rewrites @name parameters to $n exactly as pgx.NamedArgs
// does, and returns the names by position.
func positional(s string) (string, sqlParams, error) {
	byName := pgx.NamedArgs{}
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		byName[m[1]] = m[1]
	}
	sql, order, err := byName.RewriteQuery(context.Background(), nil, s, nil)
	if err != nil {
		return "", nil, err
	}
	if len(order) == 0 {
		return "", nil, fmt.Errorf("no @name parameters; bind it with stmt")
	}
	params := make(sqlParams, len(order))
	for i, n := range order {
		params[i] = n.(string)
	}
	return sql, params, nil
}

// sqlParams are a named statement's parameter names by position.
type sqlParams []string

// args orders named arguments by position. A name the statement does not
// take, or a parameter without an argument, is a programming error
// reported as one rather than a silently NULL parameter.
func (p sqlParams) args(named pgx.StrictNamedArgs) ([]any, error) {
	out := make([]any, len(p))
	for i, n := range p {
		v, ok := named[n]
		if !ok {
			return nil, fmt.Errorf("pgstore: no argument for parameter @%s", n)
		}
		out[i] = v
	}
	if len(named) != len(p) {
		for n := range named {
			if !slices.Contains(p, n) {
				return nil, fmt.Errorf("pgstore: the statement takes no parameter @%s", n)
			}
		}
	}
	return out, nil
}
