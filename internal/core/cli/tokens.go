package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func tokensCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "tokens",
		Short: "Create, list and revoke API tokens",
		Long: `API tokens authenticate requests to a server's HTTP API (every route but /livez and /readyz needs one, as ` +
			`"Authorization: Bearer TOKEN") and sign in to its console. A token has one scope: read (` + strings.Join(httpapi.Actions(apitoken.Read), ", ") +
			`), operate (also ` + strings.Join(httpapi.Actions(apitoken.Operate), ", ") + `) or admin (everything: also ` +
			strings.Join(httpapi.Actions(apitoken.Admin), ", ") + `, and the console's Definitions and Tokens pages). ` +
			`A token acts on every project of the installation unless it is bound to projects (tokens create --project), when the API refuses it every other project, the routes of no one project (secrets, metrics) and a definitions file whose task names a runAs (the account a command runs as is the host's to choose). ` +
			`A token is printed once when created and stored only as its SHA-256; a lost token is revoked and replaced.` +
			opts.clusterOnly(" On the cluster these commands need the admin role's URL: given neither --database-url nor --data-dir, they read $QL_DATABASE_ADMIN_URL first, as `ql workers` does."),
	}
	c.AddCommand(tokensCreateCommand(opts), tokensListCommand(opts), tokensRevokeCommand(opts))
	return c
}

func oneTokenArg(verb string) cobra.PositionalArgs {
	return oneName("tokens "+verb+" takes one token name", "token name")
}

func tokensCreateCommand(opts Options) *cobra.Command {
	var db dbFlags
	var scope, expires, out string
	var projects []string
	c := &cobra.Command{
		Use:   "create NAME --scope read|operate|admin [--expires 90d] [--project P]...",
		Short: "Create an API token and print it once",
		Long: `Create an API token named NAME (lower-case letters, digits, '-', '_', '.') with one scope and print it.
It is shown only this once: store it in your secret manager. --expires sets its lifetime in whole days
(90d) or as a duration (12h); without it the token lives until revoked.
--project binds the token to a project (repeat it for several): the API then refuses it every other
project's triggers, Runs, notifications and definitions, lists only its projects, and refuses it the
routes that are no one project's (metrics, global secrets). A project need not exist yet: one no project
is named is warned of on stderr (in -o json, warnings), naming the projects there are, for it is more
often a typo. Without --project the token acts on every project of the installation.`,
		Example: "  " + opts.Binary + " tokens create ci --scope read --expires 90d\n  " + opts.Binary + " tokens create alpha-ci --scope operate --project alpha",
		Args:    oneTokenArg("create"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if scope == "" {
				return &UsageError{Err: qlerror.New(qlerror.Invalid, "--scope is required: give read, operate or admin (`%s` says what each may do)", suggest(cmd, "tokens", "--help")).
					Because(apitoken.RefusalScope, "value", "")}
			}
			s, err := apitoken.ParseScope(scope)
			if err != nil {
				return &UsageError{Err: qlerror.New(qlerror.Invalid, "--scope %q: give read, operate or admin (`%s` says what each may do)", scope, suggest(cmd, "tokens", "--help")).
					Because(apitoken.RefusalScope, "value", scope)}
			}
			var life time.Duration
			if expires != "" {
				if life, err = apitoken.ParseExpiry(expires); err != nil {
					return &UsageError{Err: err}
				}
			}
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Tokens == nil {
				return fmt.Errorf("this build cannot manage API tokens of this database")
			}
			secret, t, err := apitoken.Create(cmd.Context(), b.Tokens, actor(), ids.New(), args[0], s, life, projects...)
			if err != nil {
				return err
			}
			var warnings []string
			for _, p := range t.Projects {
				if w := projectAhead(cmd.Context(), b.Definitions, nil, p, "the token is bound to it all the same and acts on it once a project of that name is applied"); w != "" {
					warnings = append(warnings, w)
				}
			}
			if out == "json" {
				v := tokenView(t, t.CreatedAtMs)
				return writeJSON(cmd.OutOrStdout(), struct {
					Token    string   `json:"token"`
					Detail   any      `json:"detail"`
					Warnings []string `json:"warnings,omitempty"`
				}{secret, v, warnings})
			}
			w := cmd.OutOrStdout()
			fmt.Fprintln(w, secret)
			fmt.Fprintf(cmd.ErrOrStderr(), "token %q (scope %s, projects %s, expires %s) created; it is shown only this once\n", t.Name, t.Scope, t.ProjectsText(), fmtExpiry(t.ExpiresAtMs))
			for _, warning := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+warning)
			}
			return nil
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&scope, "scope", "", "read, operate or admin (required)")
	c.Flags().StringVar(&expires, "expires", "", "lifetime from 1m to 3650d, e.g. 90d, 12h or 1d12h (default: until revoked)")
	c.Flags().StringArrayVar(&projects, "project", nil, "bind the token to this project; repeat for several (default: every project)")
	return c
}

// TokenView is one token as `tokens list -o json` prints it: never the
// secret nor its digest.
type TokenView struct {
	Name         string `json:"name"`
	Scope        string `json:"scope"`
	State        string `json:"state"`
	CreatedAtMs  int64  `json:"createdAtMs"`
	ExpiresAtMs  *int64 `json:"expiresAtMs"`
	RevokedAtMs  *int64 `json:"revokedAtMs"`
	LastUsedAtMs *int64 `json:"lastUsedAtMs"`
	// Projects are the projects the token is bound to; empty, every
	// project.
	Projects []string `json:"projects"`
}

func tokenView(t apitoken.Token, nowMs int64) TokenView {
	return TokenView{Name: t.Name, Scope: string(t.Scope), State: t.StateAt(nowMs), CreatedAtMs: t.CreatedAtMs,
		ExpiresAtMs: t.ExpiresAtMs, RevokedAtMs: t.RevokedAtMs, LastUsedAtMs: t.LastUsedAtMs, Projects: projectsOrEmpty(t.Projects)}
}

// projectsOrEmpty prints a token of every project as [], never null, so
// a script tests one shape.
func projectsOrEmpty(p []string) []string {
	if p == nil {
		return []string{}
	}
	return p
}

func fmtExpiry(ms *int64) string {
	if ms == nil {
		return "never"
	}
	return fmtMs(ms)
}

func tokensListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	c := &cobra.Command{
		Use:   "list",
		Short: "List API tokens: name, scope, projects, state, expiry and last use (never the token)",
		Long: `List every API token, revoked and expired ones included: its name, scope, the projects it is bound to
("every project" when none; -o json prints [] then), state (active, expired, revoked), creation and
expiry times, and when it was last used (recorded at most once a minute per server). The token itself
is never shown: it is not stored.`,
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
			if b.Tokens == nil {
				return fmt.Errorf("this build cannot manage API tokens of this database")
			}
			list, err := b.Tokens.TokenList(cmd.Context())
			if err != nil {
				return err
			}
			now := time.Now().UnixMilli()
			views := make([]TokenView, 0, len(list))
			for _, t := range list {
				views = append(views, tokenView(t, now))
			}
			return printListing(cmd, out, listing[TokenView]{
				json: struct {
					Tokens []TokenView `json:"tokens"`
				}{views},
				header: []string{"NAME", "SCOPE", "PROJECTS", "STATE", "CREATED", "EXPIRES", "LAST USED"},
				items:  views,
				row: func(v TokenView) []string {
					return []string{v.Name, v.Scope, apitoken.Token{Projects: v.Projects}.ProjectsText(), v.State, fmtMs(&v.CreatedAtMs), fmtExpiry(v.ExpiresAtMs), fmtMs(v.LastUsedAtMs)}
				},
				none: NoneLine("API token", false, "`"+suggest(cmd, "tokens", "create", "NAME", "--scope", "read")+"` makes one"),
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addOutputFlag(c, &out)
	return c
}

func tokensRevokeCommand(opts Options) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke an API token: its next request is refused",
		Long: `Revoke the API token named NAME that is not revoked yet, active or expired. Servers refuse it from
its next request on, and the console sessions signed in with it end at once. The row stays (with its last use) in ` + "`tokens list`" + `; the name may be given to a
new token. An expired token holds its name until it is revoked. A token revoked already is left as it
is, and said so (exit 0).`,
		Args: oneTokenArg("revoke"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Tokens == nil {
				return fmt.Errorf("this build cannot manage API tokens of this database")
			}
			if err := b.Tokens.TokenRevoke(cmd.Context(), args[0], actor()); err != nil {
				if at, ok := revokedAlready(cmd.Context(), b.Tokens, args[0], err); ok {
					fmt.Fprintf(cmd.OutOrStdout(), "token %q was revoked already (at %s); nothing changed\n", args[0], fmtMs(&at))
					return nil
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "token %q revoked\n", args[0])
			return nil
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	return c
}

// revokedAlready tells, for err, the refusal of a revoke of name because
// no unrevoked token has it, whether a token of that name was revoked before,
// and when the last one was: the state the command asks for holds
// already, which "no unrevoked token" alone would leave the user to find out.
func revokedAlready(ctx context.Context, tokens apitoken.Manager, name string, err error) (int64, bool) {
	if qlerror.ReasonOf(err) != apitoken.RefusalNoSuchToken {
		return 0, false
	}
	list, listErr := tokens.TokenList(ctx)
	if listErr != nil {
		return 0, false
	}
	var at int64
	for _, t := range list {
		if t.Name == name && t.RevokedAtMs != nil {
			at = max(at, *t.RevokedAtMs)
		}
	}
	return at, at != 0
}
