package pgstore

import (
	"crypto/tls"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/qinglong/qinglong/internal/core/netaddr"
)

// ConnWarningKind names what a ConnWarning is about, so a replica can log
// each under its own code.
type ConnWarningKind string

// The kinds of ConnWarnings.
const (
	// WarnTLSUnverified: a host other than this one is reached without
	// verifying its certificate.
	WarnTLSUnverified ConnWarningKind = "tls_unverified"
	// WarnPassfileExposed: the password comes from a password file group or
	// others may read.
	WarnPassfileExposed ConnWarningKind = "passfile_exposed"
	// WarnAnyHost: several hosts and no target_session_attrs that keeps only
	// the writable one.
	WarnAnyHost ConnWarningKind = "any_host"
)

// ConnWarning is one thing a connection string's settings expose.
type ConnWarning struct {
	Kind ConnWarningKind
	Text string
}

// ConnWarnings says what connecting with raw would expose, read as pgx
// reads it (a postgres:// URL or keyword/value settings, with the PG…
// variables and the service file), so that both forms draw the same
// warnings. A string pgx refuses draws none: connecting then says what is
// wrong with it. No warning repeats the string or a password.
func ConnWarnings(raw string) []ConnWarning {
	cfg, err := pgconn.ParseConfig(raw)
	if err != nil {
		return nil
	}
	var out []ConnWarning
	if w := weakTLS(cfg); w != "" {
		out = append(out, ConnWarning{WarnTLSUnverified, w})
	}
	if w := passfileExposed(raw, cfg); w != "" {
		out = append(out, ConnWarning{WarnPassfileExposed, w})
	}
	if w := anyHost(cfg); w != "" {
		out = append(out, ConnWarning{WarnAnyHost, w})
	}
	return out
}

// endpoint is one host pgx may dial with the TLS settings it tries there,
// in order (sslmode=prefer tries TLS, then none).
type endpoint struct {
	host string
	port uint16
	tls  []*tls.Config
}

// endpoints groups pgx's first try and its fallbacks by host and port, in
// the order pgx tries them.
func endpoints(cfg *pgconn.Config) []endpoint {
	tries := append([]*pgconn.FallbackConfig{{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}}, cfg.Fallbacks...)
	var out []endpoint
	for _, f := range tries {
		if n := len(out); n > 0 && out[n-1].host == f.Host && out[n-1].port == f.Port {
			out[n-1].tls = append(out[n-1].tls, f.TLSConfig)
			continue
		}
		out = append(out, endpoint{host: f.Host, port: f.Port, tls: []*tls.Config{f.TLSConfig}})
	}
	return out
}

// isLocal reports whether pgx reaches e on this host: a Unix socket,
// localhost or a loopback address.
func (e endpoint) isLocal() bool {
	if network, _ := pgconn.NetworkAddress(e.host, e.port); network == "unix" {
		return true
	}
	return netaddr.IsLoopbackHost(e.host)
}

// sslmode is the mode that makes pgx try the TLS settings of e, read back
// from what it built: only verify-full leaves certificate checks to
// crypto/tls.
func (e endpoint) sslmode() string {
	first := e.tls[0]
	switch {
	case len(e.tls) > 1 && first == nil:
		return "allow"
	case len(e.tls) > 1:
		return "prefer (the default)"
	case first == nil:
		return "disable"
	case !first.InsecureSkipVerify:
		return "verify-full"
	case first.VerifyPeerCertificate != nil:
		return "verify-ca"
	default:
		return "require"
	}
}

// weakTLS is a warning when a host other than this one is reached with an
// sslmode that does not verify the server (pgx's default, prefer, does
// not): anyone on the path could read or change the traffic, credentials
// included.
func weakTLS(cfg *pgconn.Config) string {
	for _, e := range endpoints(cfg) {
		if e.isLocal() {
			continue
		}
		if mode := e.sslmode(); mode != "verify-full" {
			return fmt.Sprintf("the database URL reaches %s with sslmode=%s, which does not verify the server; "+
				"use sslmode=verify-full (with sslrootcert) for a database on another host", e.host, mode)
		}
	}
	return ""
}

// anyHost is a warning when the string lists several servers and lets pgx
// keep whichever answers: QingLong inspects the connection an activation
// reads on, and the pool's other connections could reach a standby or
// another cluster.
func anyHost(cfg *pgconn.Config) string {
	eps := endpoints(cfg)
	if len(eps) < 2 || keepsTheWritable(cfg.ValidateConnect) {
		return ""
	}
	hosts := make([]string, 0, len(eps))
	for _, e := range eps {
		hosts = append(hosts, e.host+":"+strconv.Itoa(int(e.port)))
	}
	return fmt.Sprintf("the database URL lists several servers (%s) without target_session_attrs=read-write: each of the pool's connections "+
		"may reach any of them, a standby or another server than the one checked at start; add target_session_attrs=read-write (or primary)",
		strings.Join(hosts, ", "))
}

// keepsTheWritable reports whether pgx keeps only a server that takes
// writes: target_session_attrs read-write or primary, which pgx turns into
// these functions and keeps no other trace of.
func keepsTheWritable(validate pgconn.ValidateConnectFunc) bool {
	if validate == nil {
		return false
	}
	p := reflect.ValueOf(validate).Pointer()
	return p == reflect.ValueOf(pgconn.ValidateConnectTargetSessionAttrsReadWrite).Pointer() ||
		p == reflect.ValueOf(pgconn.ValidateConnectTargetSessionAttrsPrimary).Pointer()
}

// passfileExposed is a warning when the password pgx found is a password
// file's and group or others may read that file (pgx reads it whatever its
// mode, where psql ignores such a file). The password came from the file
// when, with the file taken away, pgx finds none.
func passfileExposed(raw string, cfg *pgconn.Config) string {
	if cfg.Password == "" {
		return ""
	}
	path := passfilePath(raw)
	if path == "" {
		return ""
	}
	without, err := pgconn.ParseConfig(withSetting(raw, "passfile", filepath.Join(os.TempDir(), "qinglong-no-passfile", "none")))
	if err != nil || without.Password != "" {
		return ""
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("the password file %s may be read by group or others (mode %04o), so the passwords in it are exposed; "+
		"psql refuses to use such a file, this command uses it as pgx does: chmod 600 %s", path, info.Mode().Perm(), path)
}

// passfilePath is the password file pgx reads for raw: its passfile
// setting, else $PGPASSFILE, else ~/.pgpass.
func passfilePath(raw string) string {
	if p := setting(raw, "passfile"); p != "" {
		return p
	}
	if p := os.Getenv("PGPASSFILE"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".pgpass")
}

// setting is the value raw gives key, "" when none: a URL's query
// parameter, or the last keyword/value pair naming key (pgx keeps the
// last). ParseConfig has already accepted raw.
func setting(raw, key string) string {
	if isURL(raw) {
		u, err := url.Parse(raw)
		if err != nil {
			return ""
		}
		return u.Query().Get(key)
	}
	var value string
	for _, kv := range keywordValues(raw) {
		if kv[0] == key {
			value = kv[1]
		}
	}
	return value
}

// withSetting is raw with key set to value, later than any other.
func withSetting(raw, key, value string) string {
	if isURL(raw) {
		u, err := url.Parse(raw)
		if err != nil {
			return raw
		}
		q := u.Query()
		q.Set(key, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	quoted := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(value)
	return raw + " " + key + "='" + quoted + "'"
}

func isURL(raw string) bool {
	return strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://")
}

// keywordValues splits libpq's keyword/value form as pgx does: key = value
// pairs separated by spaces, a value either bare or single-quoted with
// backslash escapes.
func keywordValues(s string) [][2]string {
	var out [][2]string
	for {
		s = strings.TrimLeft(s, " \t\n\r\v\f")
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return out
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t\n\r\v\f")
		var val strings.Builder
		if strings.HasPrefix(s, "'") {
			i := 1
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
			s = s[min(i+1, len(s)):]
		} else {
			i := 0
			for ; i < len(s) && !strings.ContainsRune(" \t\n\r\v\f", rune(s[i])); i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
			s = s[i:]
		}
		out = append(out, [2]string{key, val.String()})
	}
}
