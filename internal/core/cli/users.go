package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/ids"
)

func usersCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "users",
		Short: "Create, list, disable, enable and delete console user accounts",
		Long: `User accounts sign in to the web console with a name and a password, as an alternative to an API
token. A user has one role, which acts with a token scope: viewer (read), operator (operate) or owner
(admin: everything, the tokens page included). Set up the first owner with
` + "`" + opts.Binary + ` users create NAME --owner` + "`" + `. Passwords are read from the terminal (asked twice) or, with
--password-stdin, from standard input; never from a flag or the environment. Only a slow Argon2id hash
is stored. Disabling or deleting a user, or setting its password, ends its console sessions at once:
they are deleted with the change. A viewer or operator may be bound to projects (users create --project,
users set-projects): its console then shows and acts on those projects only; an owner is never bound.
A user may turn on two-step sign-in (an authenticator app's code after the password) on the console's
account page; users reset-two-step turns it off for a user who lost the phone, and users
require-two-step on requires it of every user.` + opts.clusterOnly(" On the cluster these commands need the admin role's URL: given neither --database-url nor --data-dir, they read $QL_DATABASE_ADMIN_URL first, as `ql workers` does."),
	}
	c.AddCommand(usersCreateCommand(opts), usersListCommand(opts), usersDisableCommand(opts),
		usersEnableCommand(opts), usersDeleteCommand(opts), usersPasswdCommand(opts), usersSetProjectsCommand(opts), usersResetTwoStepCommand(opts),
		usersRequireTwoStepCommand(opts))
	return c
}

func oneUserArg(verb string) cobra.PositionalArgs {
	return oneName("users "+verb+" takes one user name", "user name")
}

// readPassword reads a new password for user name: one line of standard
// input with --password-stdin, else asked twice on the terminal without
// echo. A weak one is refused before it is asked again.
func readPassword(cmd *cobra.Command, name string, fromStdin bool) (string, error) {
	in := cmd.InOrStdin()
	if fromStdin {
		line, err := bufio.NewReader(io.LimitReader(in, 4*account.MaxPassword+2)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("reading the password from standard input: %w", err)
		}
		p := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		return p, account.CheckNewPassword(name, p)
	}
	f, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", Usagef("standard input is not a terminal: pipe the password with --password-stdin")
	}
	ask := func(prompt string) (string, error) {
		fmt.Fprint(cmd.ErrOrStderr(), prompt)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
		return string(b), err
	}
	p, err := ask("Password: ")
	if err != nil {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	if err := account.CheckNewPassword(name, p); err != nil {
		return "", err
	}
	again, err := ask("Password again: ")
	if err != nil {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	if again != p {
		return "", Usagef("the two passwords differ; nothing was changed")
	}
	return p, nil
}

func usersCreateCommand(opts Options) *cobra.Command {
	var db dbFlags
	var role string
	var owner, stdin bool
	var projects []string
	c := &cobra.Command{
		Use:   "create NAME [--role viewer|operator|owner | --owner] [--project P]... [--password-stdin]",
		Short: "Create a console user account",
		Long: `Create a console user named NAME (lower-case letters, digits, '-', '_', '.') with a role: viewer
(default), operator or owner; --owner is --role owner, for the first account. The password (at least
10 characters, not one of the most common passwords, not containing NAME) is asked twice on the
terminal, or read as one line of standard input with --password-stdin.
--project binds a viewer or an operator to a project (repeat it for several): its console then lists
only those projects' triggers, Runs, logs and notifications, and refuses it anything of another
project (project_not_in_scope). Without --project the user sees every project; an owner always does.`,
		Example: "  " + opts.Binary + " users create alice --owner\n  printf '%s\\n' \"$PASSWORD\" | " + opts.Binary + " users create ci-viewer --password-stdin\n  " + opts.Binary + " users create alpha-ops --role operator --project alpha",
		Args:    oneUserArg("create"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if owner {
				if cmd.Flags().Changed("role") && role != string(account.Owner) {
					return Usagef("--owner and --role %s disagree; give one of them", role)
				}
				role = string(account.Owner)
			}
			r, err := account.ParseRole(role)
			if err != nil {
				return Usagef("--role %q: give viewer, operator or owner", role)
			}
			if _, err := account.NormalProjects(r, projects); err != nil {
				return err
			}
			p, err := readPassword(cmd, args[0], stdin)
			if err != nil {
				return err
			}
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Users == nil {
				return fmt.Errorf("this build cannot manage console users of this database")
			}
			u, err := account.Create(cmd.Context(), b.Users, actor(), ids.New(), args[0], r, p, projects...)
			if err != nil {
				return err
			}
			bound := ""
			if u.Bound() {
				bound = ", projects " + u.ProjectsText()
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %q (role %s, scope %s%s) created; sign in to the console with it\n", u.Name, u.Role, u.Role.Scope(), bound)
			warnUserProjectsAhead(cmd, b, u.Projects)
			return nil
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	c.Flags().StringVar(&role, "role", string(account.Viewer), "viewer, operator or owner")
	c.Flags().BoolVar(&owner, "owner", false, "make the user an owner (--role owner)")
	c.Flags().BoolVar(&stdin, "password-stdin", false, "read the password as one line of standard input instead of asking")
	c.Flags().StringArrayVar(&projects, "project", nil, "bind the user to this project; repeat for several (default: every project)")
	return c
}

// UserView is one account as `users list -o json` prints it: never the
// password nor its hash.
type UserView struct {
	Name           string `json:"name"`
	Role           string `json:"role"`
	Scope          string `json:"scope"`
	State          string `json:"state"`
	CreatedAtMs    int64  `json:"createdAtMs"`
	DisabledAtMs   *int64 `json:"disabledAtMs"`
	LastSigninAtMs *int64 `json:"lastSigninAtMs"`
	// Projects are the projects the user is bound to; empty, every
	// project.
	Projects []string `json:"projects"`
	// TwoStep says the user signs in with a two-step code after the
	// password; a secret begun and not confirmed is not on.
	TwoStep bool `json:"twoStep"`
}

func usersListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	c := &cobra.Command{
		Use:   "list",
		Short: "List console users: name, role, projects, state, creation, last sign-in and two-step",
		Long: `List the console users: name, role, the projects it is bound to, state, creation, last sign-in and
whether its two-step sign-in is on (TWO-STEP, on or off; a key begun and never confirmed is off).
While two-step sign-in is required of every user (users require-two-step on), a line after the table
says so and names the active users without it, who can only set it up; -o json gives it as
"twoStepRequired".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			b, err := openExistingWritable(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Users == nil {
				return fmt.Errorf("this build cannot manage console users of this database")
			}
			list, err := b.Users.UserList(cmd.Context())
			if err != nil {
				return err
			}
			required, err := b.Users.TwoStepRequired(cmd.Context())
			if err != nil {
				return err
			}
			var notes []string
			if required {
				notes = append(notes, "two-step sign-in is required of every user: "+withoutTwoStep(list))
			}
			views := make([]UserView, 0, len(list))
			for _, u := range list {
				views = append(views, UserView{Name: u.Name, Role: string(u.Role), Scope: string(u.Role.Scope()), State: u.State(),
					CreatedAtMs: u.CreatedAtMs, DisabledAtMs: u.DisabledAtMs, LastSigninAtMs: u.LastSigninAtMs, Projects: projectsOrEmpty(u.Projects), TwoStep: u.TwoStepOn})
			}
			return printListing(cmd, out, listing[UserView]{
				json: struct {
					Users []UserView `json:"users"`
					// TwoStepRequired says every user must have
					// two-step on (`users require-two-step`).
					TwoStepRequired bool `json:"twoStepRequired"`
				}{views, required},
				notes:  notes,
				header: []string{"NAME", "ROLE", "PROJECTS", "STATE", "CREATED", "LAST SIGN-IN", "TWO-STEP"},
				items:  views,
				row: func(v UserView) []string {
					return []string{v.Name, v.Role, account.User{Projects: v.Projects}.ProjectsText(), v.State, fmtMs(&v.CreatedAtMs), fmtMs(v.LastSigninAtMs), account.OnOff(v.TwoStep)}
				},
				none: NoneLine("console user", false, "`"+suggest(cmd, "users", "create", "NAME", "--owner")+"` makes one"),
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addOutputFlag(c, &out)
	return c
}

// userChange is a verb that changes one named account.
func userChange(opts Options, verb, short, long, done string, change func(cmd *cobra.Command, b *Backend, name string) error) *cobra.Command {
	return userToggle(opts, verb, short, long, done, "", func(cmd *cobra.Command, b *Backend, name string) (bool, error) {
		return true, change(cmd, b, name)
	})
}

// userToggle is a verb that puts one named account in a state (disabled,
// enabled): change says whether it did, and an account already in it is
// said to be (same), with nothing changed or recorded, exit 0.
func userToggle(opts Options, verb, short, long, done, same string, change func(cmd *cobra.Command, b *Backend, name string) (bool, error)) *cobra.Command {
	return userVerb(opts, verb, short, long, func(cmd *cobra.Command, b *Backend, name string) (string, error) {
		changed, err := change(cmd, b, name)
		if !changed {
			return same, err
		}
		return done, err
	})
}

// userVerb is a verb on one named account whose change says what it did,
// after the user's name.
func userVerb(opts Options, verb, short, long string, change func(cmd *cobra.Command, b *Backend, name string) (string, error)) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Long:  long,
		Args:  oneUserArg(verb),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Users == nil {
				return fmt.Errorf("this build cannot manage console users of this database")
			}
			done, err := change(cmd, b, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %q %s\n", args[0], done)
			return nil
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	return c
}

func usersDisableCommand(opts Options) *cobra.Command {
	return userToggle(opts, "disable", "Disable a console user: its sessions end and it cannot sign in",
		"Disable the console user NAME. Its console sessions end at once and it can no longer sign in;\nit stays in `users list`. Enable it again with `users enable NAME` (with a new password), or delete it\nto free the name. A user already disabled is left as it is: nothing changes and nothing is recorded.",
		"disabled", "is already disabled; nothing changed", func(cmd *cobra.Command, b *Backend, name string) (bool, error) {
			return b.Users.UserDisable(cmd.Context(), name, actor())
		})
}

func usersEnableCommand(opts Options) *cobra.Command {
	var stdin bool
	c := userToggle(opts, "enable", "Enable a disabled console user with a new password",
		"Enable the console user NAME again, with a new password asked twice on the terminal or read as one line\nof standard input with --password-stdin. The new password is required so that no session signed in\nbefore the user was disabled comes back; the user signs in again with it. A user already enabled is\nleft as it is, its password too: no password is asked, nothing changes and nothing is recorded\n(`users passwd NAME` sets a password).",
		"is enabled with a new password", "is already enabled; nothing changed, its password neither (`users passwd NAME` sets one)", func(cmd *cobra.Command, b *Backend, name string) (bool, error) {
			// The state first: a user already enabled, or none of that
			// name, is said so without asking for a password it would
			// not take.
			u, err := namedUser(cmd, b, name)
			if err != nil || u.State() == account.StateActive {
				return false, err
			}
			p, err := readPassword(cmd, name, stdin)
			if err != nil {
				return false, err
			}
			return account.Enable(cmd.Context(), b.Users, actor(), name, p)
		})
	c.Flags().BoolVar(&stdin, "password-stdin", false, "read the password as one line of standard input instead of asking")
	return c
}

// namedUser is the account named name; NotFound when there is none.
func namedUser(cmd *cobra.Command, b *Backend, name string) (account.User, error) {
	list, err := b.Users.UserList(cmd.Context())
	if err != nil {
		return account.User{}, err
	}
	for _, u := range list {
		if u.Name == name {
			return u, nil
		}
	}
	return account.User{}, account.ErrNoSuchUser(name)
}

func usersDeleteCommand(opts Options) *cobra.Command {
	return userChange(opts, "delete", "Delete a console user: its sessions end and its name is free",
		"Delete the console user NAME. Its console sessions end at once; the audit trail keeps the name in\nthe records of what it did.",
		"deleted", func(cmd *cobra.Command, b *Backend, name string) error {
			return b.Users.UserDelete(cmd.Context(), name, actor())
		})
}

func usersPasswdCommand(opts Options) *cobra.Command {
	var stdin bool
	// Only the cluster has several servers whose sessions end.
	where := ",\nso whoever knew the old password is signed out; setting the same password again does the same. The\nuser"
	if opts.OpenPostgres != nil {
		where = " (on the\ncluster, on every replica), so whoever knew the old password is signed out; setting the same password\nagain does the same. The user"
	}
	c := userChange(opts, "passwd", "Set a console user's password: its sessions end",
		"Set the password of the console user NAME, asked twice on the terminal or read as one line of standard\ninput with --password-stdin. Every console session of the user ends at once"+
			where+" signs in again with the new password.",
		"has a new password", func(cmd *cobra.Command, b *Backend, name string) error {
			p, err := readPassword(cmd, name, stdin)
			if err != nil {
				return err
			}
			return account.SetPassword(cmd.Context(), b.Users, actor(), name, p)
		})
	c.Flags().BoolVar(&stdin, "password-stdin", false, "read the password as one line of standard input instead of asking")
	return c
}

func usersSetProjectsCommand(opts Options) *cobra.Command {
	var projects []string
	var every bool
	c := userChange(opts, "set-projects", "Bind a console user to projects, or to every project",
		"Bind the console viewer or operator NAME to the projects given by --project (repeat it for several):\nits console then shows and acts on those projects only. --every-project unbinds it. The user's\nsessions stand and see the new projects at their next page; an owner is never bound.",
		"is bound to its projects", func(cmd *cobra.Command, b *Backend, name string) error {
			switch {
			case every && len(projects) > 0:
				return Usagef("--every-project and --project disagree; give one of them")
			case !every && len(projects) == 0:
				return Usagef("give the projects with --project P (repeat it for several), or --every-project to unbind the user")
			}
			if err := account.SetProjects(cmd.Context(), b.Users, actor(), name, projects); err != nil {
				return err
			}
			warnUserProjectsAhead(cmd, b, projects)
			return nil
		})
	c.Use = "set-projects NAME (--project P... | --every-project)"
	c.Example = "  " + opts.Binary + " users set-projects alpha-ops --project alpha --project beta\n  " + opts.Binary + " users set-projects alpha-ops --every-project"
	c.Flags().StringArrayVar(&projects, "project", nil, "bind the user to this project; repeat for several")
	c.Flags().BoolVar(&every, "every-project", false, "unbind the user: it sees every project")
	return c
}

// warnUserProjectsAhead warns on stderr of each project a user was bound
// to that no project is named yet, naming the projects there are, as
// `tokens create --project` does: more often a typo, which would leave
// the user a console with nothing in it.
func warnUserProjectsAhead(cmd *cobra.Command, b *Backend, projects []string) {
	for _, p := range projects {
		if w := projectAhead(cmd.Context(), b.Definitions, nil, p, "the user is bound to it all the same and sees it once a project of that name is applied"); w != "" {
			fmt.Fprintln(textWriter{cmd.ErrOrStderr()}, "warning: "+w)
		}
	}
}
