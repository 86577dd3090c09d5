package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"
)

// refuseArgvPassword refuses a PostgreSQL URL given on the command line that
// holds a password: every user of the host can read a process's arguments
// (ps, /proc). The message never repeats the URL.
func refuseArgvPassword(flag, raw string) error {
	if !IsPostgresURL(raw) {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Usagef("%s cannot be parsed as postgres://user@host:port/database (the URL is not shown, it may hold a password)", flag)
	}
	if holdsPassword(u) {
		return Usagef("%s holds a password, which every user of this host can read in the process list; "+
			"give the URL in $"+EnvName(strings.TrimPrefix(flag, "--"))+" instead, or %s", flag, passwordElsewhere(strings.TrimPrefix(flag, "--")))
	}
	return nil
}

// passwordElsewhere says where a URL setting's password may be kept
// instead. $PGPASSWORD is sent for every role a process logs in as, so it
// cannot also hold the maintenance role's, which a replica uses beside the
// runtime role's.
func passwordElsewhere(setting string) string {
	if setting == "database-maintenance-url" {
		return "leave the password out and keep one line per role in a pgpass file ($PGPASSFILE, else ~/.pgpass) with $PGPASSWORD unset"
	}
	return "leave the password out and keep it in $PGPASSWORD or a pgpass file ($PGPASSFILE)"
}

// holdsPassword reports whether a parsed PostgreSQL URL carries a password,
// in its user part or as a query parameter.
func holdsPassword(u *url.URL) bool {
	pw, hasPW := u.User.Password()
	return (hasPW && pw != "") || u.Query().Get("password") != ""
}

// passwordSettings are the config file's settings that may hold a
// database password.
var passwordSettings = []string{"database-url", "database-maintenance-url"}

// refuseSharedPasswordFile refuses a config file whose setting holds a
// database password while group or others may read it: the same exposure
// as the password on the command line. A file without one may be shared
// freely.
func refuseSharedPasswordFile(configFile, setting, raw string, mode fs.FileMode) error {
	if mode.Perm()&0o077 == 0 || !IsPostgresURL(raw) {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || !holdsPassword(u) {
		return nil
	}
	return Usagef("--config %s holds a database password in %s and is readable by group or others (mode %04o); "+
		"run chmod 600 %s, or %s", configFile, setting, mode.Perm(), configFile, passwordElsewhere(setting))
}

// sayKey carries, to an Opener, how to tell the command's user what a
// long step of the open is about to do.
type sayKey struct{}

// Say tells the command's user on stderr what a long step of opening the
// database is about to do, before it starts, so a command that reads a
// large file first is never silent; outside a command it says nothing.
func Say(ctx context.Context, msg string) {
	if say, ok := ctx.Value(sayKey{}).(func(string)); ok {
		say(msg)
	}
}

// stderrKey carries the command's error stream to code that has only the
// context, so warnings reach the stream Main was given.
type stderrKey struct{}

func warn(ctx context.Context, binary, msg string) {
	if msg == "" {
		return
	}
	w, ok := ctx.Value(stderrKey{}).(io.Writer)
	if !ok {
		w = os.Stderr
	}
	fmt.Fprintf(w, "%s: %s\n", binary, userText(msg))
}
