package cli

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Annotations the environment rule keeps on a flag.
const (
	// envBound marks a flag that reads its EnvName when the command line
	// does not set it.
	envBound = "ql-env"
	// envSet marks a flag whose value came from the environment, so a
	// command can tell it from one given on the command line.
	envSet = "ql-env-set"
)

// EnvName is a flag's environment variable: QL_ and the flag's name in
// upper snake case (--data-dir is QL_DATA_DIR). No flag has another one.
func EnvName(flag string) string {
	return "QL_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// BindEnv lets the named flags of fs come from their EnvName.
func BindEnv(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, envBound, []string{EnvName(n)}); err != nil {
			panic("cli: BindEnv: " + err.Error())
		}
	}
}

// EnvBound reports whether fl reads its EnvName.
func EnvBound(fl *pflag.Flag) bool {
	_, ok := fl.Annotations[envBound]
	return ok
}

// onCommandLine reports whether the command line set fl (not the
// environment).
func onCommandLine(fl *pflag.Flag) bool {
	_, fromEnv := fl.Annotations[envSet]
	return fl.Changed && !fromEnv
}

// RenamedEnv maps each environment variable an earlier release read to the
// one that replaced it. PostgreSQL is the "database" in every name, as in
// QL_DATABASE_URL.
var RenamedEnv = map[string]string{ //nolint:gosec // G101: environment variable names, not credentials
	"QL_PG_URL":                     "QL_DATABASE_URL",
	"QL_PG_MIGRATION_URL":           "QL_DATABASE_MIGRATION_URL",
	"QL_PG_SUPERUSER_URL":           "QL_DATABASE_SUPERUSER_URL",
	"QL_PG_RUNTIME_URL":             "QL_DATABASE_RUNTIME_URL",
	"QL_PG_MIGRATION_PASSWORD":      "QL_DATABASE_MIGRATION_PASSWORD",
	"QL_PG_ADMIN_PASSWORD":          "QL_DATABASE_ADMIN_PASSWORD",
	"QL_PG_RUNTIME_PASSWORD":        "QL_DATABASE_RUNTIME_PASSWORD",
	"QL_PG_WORKER_INGRESS_PASSWORD": "QL_DATABASE_WORKER_INGRESS_PASSWORD",
}

// Getenv returns the variable name. An earlier name of it that is still
// set is never ignored: set alone, or with another value than the new
// name's, it is a usage error saying what to set instead. The message
// names variables, never their values.
func Getenv(getenv func(string) string, name string) (string, error) {
	v := getenv(name)
	for old, now := range RenamedEnv {
		if now != name {
			continue
		}
		switch ov := getenv(old); {
		case ov == "" || ov == v:
		case v == "":
			return "", Usagef("%s was renamed %s; set that instead", old, name)
		default:
			return "", Usagef("%s was renamed %s, and both are set to different values; unset %s", old, name, old)
		}
	}
	return v, nil
}

// refuseRetiredEnv refuses every variable of RenamedEnv still set, as
// Getenv does, whether or not the command reads the new name: an operator
// who set QL_PG_MIGRATION_URL for `ql serve` or `ql runs list` meant it to
// matter, and a command that ignored it would run on other settings than
// the ones meant.
func refuseRetiredEnv(getenv func(string) string) error {
	for _, old := range slices.Sorted(maps.Keys(RenamedEnv)) {
		if _, err := Getenv(getenv, RenamedEnv[old]); err != nil {
			return err
		}
	}
	return nil
}

// fillFromEnv sets every environment-bound flag of c the command line left
// unset from its variable. A URL holding a password is refused on the
// command line first, before the environment may set the same flag. It is
// the pre-run of every command of every binary, so it refuses the retired
// variables first, before any command runs.
func fillFromEnv(c *cobra.Command) error {
	if err := refuseRetiredEnv(os.Getenv); err != nil {
		return err
	}
	fs := c.Flags()
	for _, name := range []string{"database-url", "database-maintenance-url"} {
		if fl := fs.Lookup(name); fl != nil && fl.Changed {
			if err := refuseArgvPassword("--"+name, fl.Value.String()); err != nil {
				return err
			}
		}
	}
	var err error
	fs.VisitAll(func(fl *pflag.Flag) {
		if err != nil || fl.Changed || !EnvBound(fl) {
			return
		}
		name := EnvName(fl.Name)
		v, gerr := Getenv(os.Getenv, name)
		if gerr != nil || v == "" {
			err = gerr
			return
		}
		if e := fs.Set(fl.Name, v); e != nil {
			err = Usagef("%s=%q: %v", name, v, e)
			return
		}
		err = fs.SetAnnotation(fl.Name, envSet, []string{name})
	})
	return err
}
