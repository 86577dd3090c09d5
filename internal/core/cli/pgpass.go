package cli

import (
	"cmp"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// PassfileExposed returns a warning when a connection to the URL would
// take its password from a password file group or others may read (pgx
// reads it whatever its mode, where psql ignores such a file), and ""
// otherwise: when the URL or $PGPASSWORD gives the password, or the file
// is private or absent. The file is found as pgx finds it: the URL's
// passfile, else $PGPASSFILE, else ~/.pgpass.
func PassfileExposed(raw string, getenv func(string) string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return ""
	}
	if _, set := u.User.Password(); set || getenv("PGPASSWORD") != "" {
		return ""
	}
	path := cmp.Or(u.Query().Get("passfile"), getenv("PGPASSFILE"))
	if path == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		path = filepath.Join(home, ".pgpass")
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("the password file %s may be read by group or others (mode %04o), so the passwords in it are exposed; "+
		"psql refuses to use such a file, this command uses it as pgx does: chmod 600 %s", path, info.Mode().Perm(), path)
}
