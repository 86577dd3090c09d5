package pgstore

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// URLProblem says what in a connection string pgx would refuse, naming
// the part at fault, or "" when pgx accepts it: a command can refuse the
// string before it starts anything. pgx's own text quotes the string,
// which may hold a password its best-effort redaction misses in a
// malformed one, so neither the string nor that text is ever repeated.
func URLProblem(url string) string {
	if _, err := pgxpool.ParseConfig(url); err != nil {
		return urlProblem(url, err) + urlNotShown
	}
	return ""
}

const urlNotShown = " (the URL is not shown: it may hold a password)"

// urlError is a connection string pgx refused, as a configuration error.
func urlError(url string, err error) error {
	return qlerror.New(qlerror.Invalid, "database URL: %s", urlProblem(url, err)+urlNotShown)
}

// urlRules say what pgx accepts for the parameters it checks itself.
var urlRules = map[string]string{
	"sslmode":              "must be one of disable, allow, prefer, require, verify-ca or verify-full",
	"sslcertmode":          "must be one of disable, allow or require",
	"connect_timeout":      "must be a whole number of seconds, e.g. connect_timeout=10",
	"port":                 "must be a number from 1 to 65535",
	"target_session_attrs": "must be one of any, read-write, read-only, primary, standby or prefer-standby",
	"channel_binding":      "must be one of disable, prefer or require",
	"min_protocol_version": "must be 3.0, 3.2 or latest, and not above max_protocol_version",
	"max_protocol_version": "must be 3.0, 3.2 or latest, and not below min_protocol_version",
	"require_auth":         "must be a comma-separated list of authentication methods, e.g. scram-sha-256",
}

// urlEnv are the libpq variables that stand in for a parameter the URL
// does not give.
var urlEnv = map[string]string{
	"sslmode": "PGSSLMODE", "sslcertmode": "PGSSLCERTMODE", "connect_timeout": "PGCONNECT_TIMEOUT", "port": "PGPORT",
	"target_session_attrs": "PGTARGETSESSIONATTRS", "channel_binding": "PGCHANNELBINDING",
	"min_protocol_version": "PGMINPROTOCOLVERSION", "max_protocol_version": "PGMAXPROTOCOLVERSION", "require_auth": "PGREQUIREAUTH",
}

// urlParams are the parameter names a message may repeat: names libpq or
// pgx define. Any other name in a malformed string may be a password out of
// place.
var urlParams = []string{
	"host", "hostaddr", "port", "dbname", "database", "user", "password", "passfile", "connect_timeout", "application_name", "options",
	"sslmode", "sslcertmode", "sslrootcert", "sslcert", "sslkey", "sslpassword", "sslsni", "sslnegotiation", "target_session_attrs",
	"service", "servicefile", "min_protocol_version", "max_protocol_version", "channel_binding", "require_auth", "krbsrvname", "krbspn",
	"timezone", "search_path", "statement_cache_capacity", "description_cache_capacity", "default_query_exec_mode",
	"pool_max_conns", "pool_min_conns", "pool_min_idle_conns", "pool_max_conn_lifetime", "pool_max_conn_idle_time",
	"pool_health_check_period", "pool_max_conn_lifetime_jitter", "pool_ping_timeout",
}

var paramWord = regexp.MustCompile(`[a-z_]+`)

// urlProblem names what pgx refused. Its reason is read with the string
// blanked out; a reason from the syntax parsers can quote the string's
// bytes, so the syntax is then examined here instead.
func urlProblem(url string, err error) string {
	var pce *pgconn.ParseConfigError
	if !errors.As(err, &pce) {
		return "it cannot be parsed; use postgres://user@host:port/database"
	}
	bare := *pce
	bare.ConnString = ""
	reason := strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	switch {
	case strings.HasPrefix(reason, "failed to parse as URL"):
		return urlSyntax(url)
	case strings.HasPrefix(reason, "failed to parse as keyword/value"):
		return "it is neither a postgres://user@host:port/database URL nor keyword=value pairs " +
			"(every keyword needs '=' and a value; quote a value holding spaces in single quotes)"
	case strings.HasPrefix(reason, "failed to read service"):
		return "the service it names cannot be read from the service file ($PGSERVICEFILE, else ~/.pg_service.conf)"
	case strings.HasPrefix(reason, "could not match"):
		return "the hosts and ports do not pair up: give one port for every host, or one per host"
	}
	for _, word := range paramWord.FindAllString(reason, -1) {
		if rule, ok := urlRules[word]; ok {
			name := "the " + word + " parameter"
			if word == "port" {
				name = "the port"
			}
			return fmt.Sprintf("%s (in the URL, else $%s) %s", name, urlEnv[word], rule)
		}
	}
	if strings.HasPrefix(reason, "failed to configure TLS") {
		return "the TLS settings (sslrootcert, sslcert, sslkey, sslpassword) cannot be used: " + strings.TrimSuffix(strings.TrimPrefix(reason, "failed to configure TLS ("), ")")
	}
	for _, word := range paramWord.FindAllString(reason, -1) {
		if slices.Contains(urlParams, word) {
			return "the " + word + " parameter has a value pgx cannot use: " + reason
		}
	}
	return "it cannot be parsed; use postgres://user@host:port/database"
}

// urlSyntax finds the part of a postgres:// URL that breaks the syntax,
// reading it the way pgx does (libpq's rules): user info up to an '@'
// before any '/', hosts and ports up to '/' or '?', then the database and
// the query parameters.
func urlSyntax(url string) string {
	if strings.IndexByte(url, 0) >= 0 {
		return "it holds a NUL byte"
	}
	p := strings.TrimPrefix(strings.TrimPrefix(url, "postgresql://"), "postgres://")
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		user, password, _ := strings.Cut(p[:i], ":")
		if !decodable(user) {
			return "the user name " + badEscape
		}
		if !decodable(password) {
			return "the password " + badEscape + "; better, leave it out of the URL and keep it in $PGPASSWORD or a password file ($PGPASSFILE, else ~/.pgpass)"
		}
		p = p[i+1:]
	}
	netloc := p
	if i := strings.IndexAny(p, "/?"); i >= 0 {
		netloc, p = p[:i], p[i:]
	} else {
		p = ""
	}
	if strings.Contains(netloc, "[") {
		return "a host in [brackets] (an IPv6 address) is empty, lacks its ']' or is not followed by :port, ',', '/' or '?'"
	}
	if !decodable(netloc) {
		return "a host or port " + badEscape
	}
	if rest, ok := strings.CutPrefix(p, "/"); ok {
		db, _, _ := strings.Cut(rest, "?")
		if !decodable(db) {
			return "the database name " + badEscape
		}
	}
	if _, query, ok := strings.Cut(p, "?"); ok {
		for n, pair := range strings.Split(query, "&") {
			key, value, found := strings.Cut(pair, "=")
			name := fmt.Sprintf("query parameter number %d", n+1)
			if slices.Contains(urlParams, key) {
				name = "the " + key + " parameter"
			}
			switch {
			case !found:
				return name + " has no '=': write name=value"
			case strings.Contains(value, "="):
				return name + " has a second '=': write it as %3D in a value"
			case !decodable(key):
				return "the name of " + name + " " + badEscape
			case !decodable(value):
				return "the value of " + name + " " + badEscape
			}
		}
	}
	return "it is not of the form postgres://user@host:port/database?name=value"
}

const badEscape = "has a '%' not followed by two hex digits (write a literal % as %25), an encoded NUL or a space inside it"

// decodable reports whether pgx can percent-decode s: every '%' starts two
// hex digits that are not 00, and no space follows a non-space.
func decodable(s string) bool {
	s = strings.Trim(s, " ")
	if strings.Contains(s, " ") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) || (s[i+1] == '0' && s[i+2] == '0') {
			return false
		}
		i += 2
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// connectFailure is a failed connection told once. pgx lists every
// attempt, and under sslmode=prefer (the default) it makes two per host,
// with TLS and without: one network error appears twice, and a refused
// login follows the TLS attempt's "server refused TLS connection", which
// is not what went wrong.
type connectFailure struct {
	err  error
	text string
}

func (e *connectFailure) Error() string { return e.text }
func (e *connectFailure) Unwrap() error { return e.err }

// tellOnce gives err, when it is a failed connection, the text of its
// distinct causes: the server's refusal when there was one, otherwise each
// attempt's error once, the TLS refusal left out when another attempt
// followed it. The result still unwraps to every error pgx returned.
func tellOnce(err error) error {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return err
	}
	attempts := []error{ce.Unwrap()}
	if joined, ok := ce.Unwrap().(interface{ Unwrap() []error }); ok {
		attempts = joined.Unwrap()
	}
	var refusals, others []string
	for _, a := range attempts {
		var pe *pgconn.PgError
		var ne *net.OpError
		switch {
		case errors.As(a, &pe):
			refusals = appendOnce(refusals, pe.Message+" (SQLSTATE "+pe.Code+")")
		case errors.As(a, &ne):
			others = appendOnce(others, ne.Error())
		case strings.HasSuffix(a.Error(), "server refused TLS connection") && len(attempts) > 1:
		default:
			others = appendOnce(others, a.Error())
		}
	}
	causes := refusals
	if len(causes) == 0 {
		causes = others
	}
	if len(causes) == 0 {
		return err
	}
	return &connectFailure{err: err, text: strings.Join(causes, "; ")}
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// unavailable marks a lost database as schedule.ErrUnavailable without
// adding that error's words to the cause's.
type unavailable struct{ err error }

func (e unavailable) Error() string   { return e.err.Error() }
func (e unavailable) Unwrap() []error { return []error{schedule.ErrUnavailable, e.err} }

// LoginRefused reports a connection the server refused to log in
// (SQLSTATE class 28: a wrong password, an unknown role or one that may not
// log in, no pg_hba.conf entry).
func LoginRefused(err error) bool {
	return strings.HasPrefix(sqlState(err), "28")
}

// loginRole is the role a refused connection tried to log in as.
func loginRole(err error) string {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) && ce.Config != nil && ce.Config.User != "" {
		return ce.Config.User
	}
	return "the URL names"
}

// loginDatabase is the database a refused connection asked for: the URL's,
// else the role's name, which the server takes for a URL that names none;
// "" when err does not say.
func loginDatabase(err error) string {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) && ce.Config != nil {
		return cmp.Or(ce.Config.Database, ce.Config.User)
	}
	return ""
}

// ForCommand is err as a command that acts with its URL's role reads it:
// PostgreSQL refusing the role's login is the refusal of the command's
// credential (Unauthenticated), as a privilege the role lacks is
// (PermissionDenied), and a database the URL names that does not exist is
// a name that names nothing (NotFound); its words are kept. The store
// codes all three FailedPrecondition, as a server meets them: there they
// are the server's configuration, and its callers (a worker, an API
// client) must not read them as their own credential refused. A runtime
// connection made as a role that may do more than the runtime role
// (CodeRoleTooPowerful), or that may not read the schema (CodeRoleDenied),
// is the credential refused too: only another URL cures it, so it must not
// exit as a failure a retry may pass. A database a newer build migrated
// (CodeHistoryAhead) conflicts with what exists, as the embedded store's
// newer file does (FailedPrecondition, exit 4): the same binary fails the
// same way until it is upgraded or the database restored.
func ForCommand(err error) error {
	var re *ReadinessError
	if errors.As(err, &re) && (re.Code == CodeRoleTooPowerful || re.Code == CodeRoleDenied) {
		return qlerror.Wrap(qlerror.PermissionDenied, err, "this role is refused as a runtime connection")
	}
	if errors.As(err, &re) && re.Code == CodeHistoryAhead {
		return qlerror.Wrap(qlerror.FailedPrecondition, err, "this binary is older than the database; nothing was changed")
	}
	var code qlerror.Code
	switch s := sqlState(err); {
	case strings.HasPrefix(s, "28"):
		code = qlerror.Unauthenticated
	case s == stateInsufficientPriv:
		code = qlerror.PermissionDenied
	case s == stateInvalidCatalogName:
		code = qlerror.NotFound
	default:
		return err
	}
	qe, ok := err.(*qlerror.Error)
	if !ok {
		return &qlerror.Error{Code: code, Msg: err.Error()}
	}
	recoded := *qe
	recoded.Code = code
	return &recoded
}
