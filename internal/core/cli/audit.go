package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/audit"
)

func auditCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "audit",
		Short: "List who changed what: tokens, users, project and trigger pauses, notification retries",
		Long: `The audit trail records every change people make to API tokens, console users, project and
trigger pauses, trigger enables and disables, and notification retries: when (the database's
time), who (the operating-system user of a command, api:TOKEN@ADDRESS for the API,
console:user:NAME@ADDRESS or console:token:NAME@ADDRESS for the web console), what (a dotted
action such as token.revoked), the object and its project. Each record is written in the same
transaction as its change, so no change is kept without its record, nor a record without its
change; nothing deletes them. It never holds a token's value, a password or a command's
environment.
The server's API (GET /api/v1/audit, a token of scope admin) and its web console's Audit page, for
owners, list it too.` + opts.clusterOnly("\nOn the cluster these commands read with the runtime or the admin role's URL."),
	}
	c.AddCommand(auditListCommand(opts))
	return c
}

func auditListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, since, actor, action, project, after string
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "List the audit trail, newest first",
		Long: `List the audit trail, newest first, a page at a time. When more follow the page, standard error
says so after the table: "more: --after CURSOR"; give that flag to list the next page, which
records written meanwhile never shift. -o json prints the page as GET /api/v1/audit answers:
{"records": [...], "next": "CURSOR"}, next only when more follow.
--actor matches an actor exactly, or every address of it: --actor api:deploy lists what the
token deploy did from anywhere. --action is one of ` + strings.Join(actionNames(), ", ") + `.
` + apiHelp("audit list"),
		Example: "  " + opts.Binary + " audit list --since 24h\n  " + opts.Binary + " audit list --action token.revoked -o json\n  " +
			opts.Binary + " audit list --project shop --actor alice --since 2026-12-01T00:00:00Z",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			q := audit.Query{Actor: actor, Action: audit.Action(action), Project: project, After: after, Limit: limit}
			if since != "" {
				ms, err := sinceMs(since, time.Now())
				if err != nil {
					return err
				}
				q.SinceMs = ms
			}
			if err := q.Check(); err != nil {
				return Usagef("%s", strings.TrimPrefix(err.Error(), "audit listing: "))
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Audit == nil {
				return fmt.Errorf("this build cannot list the audit trail of this database")
			}
			page, err := b.Audit.AuditList(cmd.Context(), q)
			if err != nil {
				return err
			}
			if page.Records == nil {
				page.Records = []audit.Record{}
			}
			return printListing(cmd, out, listing[audit.Record]{
				json:   page,
				header: []string{"AT", "ACTOR", "ACTION", "OBJECT", "PROJECT", "NOTE"},
				items:  page.Records,
				row: func(r audit.Record) []string {
					return []string{fmtMs(&r.AtMs), r.Actor, string(r.Action), string(r.ObjectKind) + " " + r.ObjectName, orDash(r.Project), orDash(r.Note)}
				},
				next: page.Next,
				none: NoneLine("audit record", since != "" || actor != "" || action != "" || project != "" || after != "",
					"creating or revoking a token, a change to a user, a pause or a notification's retry records one"),
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&since, "since", "", "only records from this time on: a time (2026-12-01T00:00:00Z) or how long ago (90m, 24h, 7d)")
	c.Flags().StringVar(&actor, "actor", "", "only records of this actor (every address of it unless it names one after @)")
	c.Flags().StringVar(&action, "action", "", "only records of this action (token.revoked, user.disabled, project.paused, ...)")
	c.Flags().StringVar(&project, "project", "", "only records of this project (by name)")
	c.Flags().IntVar(&limit, "limit", audit.DefaultListed, fmt.Sprintf("page size (1–%d)", audit.MaxListed))
	c.Flags().StringVar(&after, "after", "", "continue after this record (the cursor printed as 'more:')")
	return c
}

// sinceMs reads --since: an RFC 3339 time, or a duration back from now
// (Go's units, and d for days).
func sinceMs(s string, now time.Time) (int64, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UnixMilli(), nil
	}
	d, err := time.ParseDuration(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, nerr := strconv.Atoi(days)
		d, err = time.Duration(n)*24*time.Hour, nerr
	}
	if err != nil || d <= 0 {
		return 0, Usagef("--since %q is neither a time (2026-12-01T00:00:00Z) nor how long ago (90m, 24h, 7d)", s)
	}
	return max(now.Add(-d).UnixMilli(), 0), nil
}

func actionNames() []string {
	out := make([]string, len(audit.Actions))
	for i, a := range audit.Actions {
		out[i] = string(a)
	}
	return out
}
