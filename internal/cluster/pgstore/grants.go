package pgstore

import "sort"

// RoleKind is one of the five least-privilege roles.
type RoleKind string

// The five roles, each holding only the privileges its work needs.
const (
	RoleMigration     RoleKind = "migration"
	RoleAdmin         RoleKind = "admin"
	RoleRuntime       RoleKind = "runtime"
	RoleWorkerIngress RoleKind = "worker_ingress"
	// RoleMaintenance deletes what retention lets go: finished Runs with
	// their attempts, events and log chunks, and old logs. The runtime
	// role keeps no DELETE on any of them.
	RoleMaintenance RoleKind = "maintenance"
)

// RoleKinds lists the five roles in a fixed order.
var RoleKinds = []RoleKind{RoleMigration, RoleAdmin, RoleRuntime, RoleWorkerIngress, RoleMaintenance}

// DefaultRolePrefix prefixes the five role names (ql_migration, ...).
const DefaultRolePrefix = "ql_"

// Roles are the concrete role names of one installation.
type Roles struct {
	Migration, Admin, Runtime, WorkerIngress, Maintenance string
}

// RoleNames derives the five names from a prefix ("" means the default).
func RoleNames(prefix string) Roles {
	if prefix == "" {
		prefix = DefaultRolePrefix
	}
	return Roles{
		Migration:     prefix + string(RoleMigration),
		Admin:         prefix + string(RoleAdmin),
		Runtime:       prefix + string(RoleRuntime),
		WorkerIngress: prefix + string(RoleWorkerIngress),
		Maintenance:   prefix + string(RoleMaintenance),
	}
}

// Name returns the role name of a kind.
func (r Roles) Name(k RoleKind) string {
	switch k {
	case RoleMigration:
		return r.Migration
	case RoleAdmin:
		return r.Admin
	case RoleRuntime:
		return r.Runtime
	case RoleMaintenance:
		return r.Maintenance
	default:
		return r.WorkerIngress
	}
}

// tableGrants is the exact privilege matrix (docs/architecture.md, "Schema, roles and publishing"): what each non-owner
// role holds on each table. The migration role owns everything and is
// absent; a table or role missing here holds nothing. EnsureRoles installs
// exactly this and readiness fails on any difference, extra or missing,
// but for a grant of lagGrants that is missing.
var tableGrants = map[string]map[RoleKind][]string{
	// worker_ingress holds no table privilege at all, only CONNECT and
	// USAGE on the schema (grantStatements): the worker ingress runs inside
	// a replica and acts over the runtime role's pool, so a worker's
	// request can never reach the database with rights of its own.
	// Every role that works on the data checks, before it does, that the
	// schema is the one its binary knows.
	"schema_migrations": {RoleAdmin: {"SELECT"}, RoleRuntime: {"SELECT"}, RoleMaintenance: {"SELECT"}},
	"schema_capability": {RoleAdmin: {"SELECT"}, RoleRuntime: {"SELECT"}, RoleMaintenance: {"SELECT"}},
	// The maintenance role deletes an archived project with everything
	// of it (`ql projects delete`), in the transaction that deletes its
	// Runs: it deletes its definitions, reading only the keys that find
	// them (columnGrants), so it can neither write nor export one.
	"projects":            {RoleAdmin: {"SELECT", "INSERT", "UPDATE"}, RoleRuntime: {"SELECT"}, RoleMaintenance: {"DELETE"}},
	"tasks":               {RoleAdmin: {"SELECT", "INSERT", "UPDATE"}, RoleRuntime: {"SELECT"}, RoleMaintenance: {"DELETE"}},
	"task_revisions":      {RoleAdmin: {"SELECT", "INSERT"}, RoleRuntime: {"SELECT"}, RoleMaintenance: {"DELETE"}},
	"execution_revisions": {RoleAdmin: {"SELECT", "INSERT"}, RoleRuntime: {"SELECT"}, RoleMaintenance: {"DELETE"}},
	"triggers":            {RoleAdmin: {"SELECT", "INSERT", "UPDATE"}, RoleRuntime: {"SELECT"}, RoleMaintenance: {"DELETE"}},
	"trigger_revisions":   {RoleAdmin: {"SELECT", "INSERT"}, RoleRuntime: {"SELECT"}, RoleMaintenance: {"DELETE"}},
	// The runtime claims and advances rows but never creates or removes
	// them: only a publish (admin) may create or reset a schedule, and
	// only a project's deletion (maintenance) removes one.
	"trigger_schedules": {RoleAdmin: {"SELECT", "INSERT", "UPDATE"}, RoleRuntime: {"SELECT", "UPDATE"}, RoleMaintenance: {"DELETE"}},
	// The maintenance role deletes finished Runs with their attempts,
	// events and log chunks; nothing else may delete any of them.
	"runs":     {RoleRuntime: {"SELECT", "INSERT", "UPDATE"}, RoleMaintenance: {"SELECT", "DELETE"}},
	"attempts": {RoleRuntime: {"SELECT", "INSERT", "UPDATE"}, RoleMaintenance: {"SELECT", "DELETE"}},
	// History is append-only for the runtime.
	"run_events": {RoleRuntime: {"SELECT", "INSERT"}, RoleMaintenance: {"SELECT", "DELETE"}},
	// An admin creates, drains and revokes worker credentials; the
	// runtime (the worker ingress runs inside the replica, on its pool)
	// only authenticates them. Nobody deletes one: a revoked credential
	// stays, so its name cannot be reused by mistake.
	"workers": {RoleAdmin: {"SELECT", "INSERT", "UPDATE"}, RoleRuntime: {"SELECT"}},
	// Sessions are the runtime's (register, heartbeat, sweep); an admin
	// only reads them for `ql workers list`.
	"worker_sessions": {RoleAdmin: {"SELECT"}, RoleRuntime: {"SELECT", "INSERT", "UPDATE"}},
	// Log chunks are append-only: a chunk, once accepted, never changes.
	"run_log_chunks": {RoleRuntime: {"SELECT", "INSERT"}, RoleMaintenance: {"SELECT", "DELETE"}},
	// The occurrence ledger: admission appends to it, and compaction folds
	// old entries into per-reason totals and deletes them (the runtime's
	// only DELETE). A publish (admin) appends what the revision it replaces
	// owes, with the same compaction, in its own transaction.
	"occurrence_ledger":           {RoleAdmin: {"SELECT", "INSERT", "DELETE"}, RoleRuntime: {"SELECT", "INSERT", "DELETE"}, RoleMaintenance: {"DELETE"}},
	"occurrence_ledger_compacted": {RoleAdmin: {"SELECT", "INSERT", "UPDATE"}, RoleRuntime: {"SELECT", "INSERT", "UPDATE"}, RoleMaintenance: {"DELETE"}},
	// An admin (`ql triggers pause`) and a replica's API or console (the
	// runtime) pause and resume triggers; the audit trail of it is
	// append-only for both, and goes only with its project (maintenance). The runtime reads it to show a trigger's
	// newest records in its view (API, console, `ql triggers show`).
	"trigger_schedule_audit": {RoleAdmin: {"SELECT", "INSERT"}, RoleRuntime: {"SELECT", "INSERT"}, RoleMaintenance: {"DELETE"}},
	// The audit trail of the changes people make: the admin role (tokens,
	// users, `ql projects pause`) and the runtime (a replica's API and
	// console: project pauses, notification retries, the first owner, a
	// user's own password) append to it in the transaction of the change;
	// both read it (`ql audit list`, the API, the console). The maintenance
	// role only appends the record of a project's deletion, in its
	// transaction, and cannot read the trail. No role updates or deletes a
	// record: it is kept.
	"audit_log": {RoleAdmin: {"SELECT", "INSERT"}, RoleRuntime: {"SELECT", "INSERT"}, RoleMaintenance: {"INSERT"}},
	// A project's pause record: written where triggers are paused (an
	// admin's `ql projects pause`, a replica's API and console as the
	// runtime), deleted only with its project (maintenance; a resume
	// updates it). A publish (admin)
	// reads it so that a trigger new to a paused project starts paused.
	"project_pauses": {RoleAdmin: {"SELECT", "INSERT", "UPDATE"}, RoleRuntime: {"SELECT", "INSERT", "UPDATE"}, RoleMaintenance: {"DELETE"}},
	// An admin creates and revokes API tokens; the runtime, which serves
	// the API, only reads them to authenticate, and records their use in
	// a table of its own, so it can never change a token's scope, expiry
	// or revocation.
	"api_tokens":      {RoleAdmin: {"SELECT", "INSERT", "UPDATE"}, RoleRuntime: {"SELECT"}},
	"api_token_usage": {RoleAdmin: {"SELECT"}, RoleRuntime: {"SELECT", "INSERT", "UPDATE"}},
	// An admin creates, disables and deletes console accounts and sets
	// their passwords; the runtime, which serves the console, reads them to
	// sign users in and writes only the time of a sign-in (columnGrants),
	// so it can never change a role or a disabled account; the first owner
	// and a user's own password it writes through functionGrants' two
	// functions alone.
	"console_users": {RoleAdmin: {"SELECT", "INSERT", "UPDATE", "DELETE"}, RoleRuntime: {"SELECT"}},
	// Two-step sign-in is the console's (the runtime): a user turns it on
	// and off, and each code or recovery code a sign-in accepts is written
	// used. No row grants anything: a sign-in still needs the account's
	// password, which the runtime cannot change but through
	// functionGrants' function. The admin role resets a user's (`ql users
	// reset-two-step`); deleting an account deletes both rows by cascade,
	// which runs as the tables' owner.
	"console_two_step":       {RoleAdmin: {"SELECT", "DELETE"}, RoleRuntime: {"SELECT", "INSERT", "UPDATE", "DELETE"}},
	"console_recovery_codes": {RoleRuntime: {"SELECT", "INSERT", "DELETE"}},
	// Whether two-step sign-in is required of every user: an owner
	// changes it on a replica's account page (the runtime) and an
	// operator with `ql users require-two-step` (admin); each replica's
	// console reads it at every request of a user's session. Its one row
	// is the migration's: nobody inserts or deletes one. Turning it off
	// grants nothing a role could not do already: the runtime may turn
	// any user's two-step off (console_two_step).
	"console_settings": {RoleAdmin: {"SELECT", "UPDATE"}, RoleRuntime: {"SELECT", "UPDATE"}},
	// A sign-in waiting for its second step is the runtime's too: its row
	// names a user whose password was right, and the session it leads to
	// still needs that user's code.
	"console_two_step_pending": {RoleRuntime: {"SELECT", "INSERT", "DELETE"}},
	// The Idempotency-Keys of dependencies changes are the API's (the
	// runtime): a claim inserts or takes back a stale one, its change
	// records its Run or deletes it, and new claims delete old ones. A row
	// only names a Run for its own caller's retry: writing one starts no
	// change.
	"dependency_keys": {RoleRuntime: {"SELECT", "INSERT", "UPDATE", "DELETE"}},
	// Console sessions are the runtime's (sign-in, sign-out, expiry, the
	// last use): a row holds a token's digest and names a user or an API
	// token that every request looks up again, so writing one can never
	// make an account, a token or a scope the lookup does not grant. The
	// admin role deletes the sessions of a user it disables, deletes or
	// gives a new password, and of a token it revokes, by their principal
	// (columnGrants: it reads no other column); the maintenance role's
	// retention pass deletes expired ones by their expiry.
	"console_sessions": {RoleAdmin: {"DELETE"}, RoleRuntime: {"SELECT", "INSERT", "UPDATE", "DELETE"}, RoleMaintenance: {"DELETE"}},
	// The runtime writes notifications with the state changes causing
	// them, claims, marks and (`ql notifications retry`, with the runtime
	// role's URL as `ql runs`) retries them; it never deletes one. The
	// admin only inserts the notifications of the ledger entries a publish
	// writes (SELECT for their ON CONFLICT ... DO NOTHING). The maintenance
	// role's retention deletes delivered and dead ones after their age.
	"notification_outbox": {RoleAdmin: {"SELECT", "INSERT"}, RoleRuntime: {"SELECT", "INSERT", "UPDATE"}, RoleMaintenance: {"SELECT", "DELETE"}},
	// Each replica upserts its own heartbeat and marks it stopped at a
	// graceful stop (the runtime reads them all for the console); it never
	// deletes one: the maintenance role's retention pass removes the rows
	// of replicas long stopped or expired.
	"replica_heartbeats": {RoleRuntime: {"SELECT", "INSERT", "UPDATE"}, RoleMaintenance: {"SELECT", "DELETE"}},
	// A replica that holds for workers records the hold's end, and one
	// starting meanwhile reads it; the single row is overwritten by the
	// next hold, never deleted.
	"workers_hold": {RoleRuntime: {"SELECT", "INSERT", "UPDATE"}},
}

// lagGrants are grants of tableGrants that a database whose roles were not
// re-applied since the upgrade adding them may still lack. Each only lets
// a view show more, and every reader of it says so and goes on without it,
// or serves only a command an operator runs (`ql projects delete`), which
// without it changes nothing and names `ql db roles`; so readiness accepts
// its absence rather than stop the replicas. An extra privilege is still
// drift.
var lagGrants = map[string]map[RoleKind][]string{
	"trigger_schedule_audit": {RoleRuntime: {"SELECT"}},
	"audit_log":              {RoleMaintenance: {"INSERT"}},
}

// columnGrants are the privileges held on single columns, on top of
// tableGrants. SELECT ... FOR UPDATE needs UPDATE on at least one column
// of the locked table: the maintenance role locks the Runs (and the
// attempts whose logs) it deletes with FOR UPDATE SKIP LOCKED, so that
// passes on many replicas share the work. It holds UPDATE on one column
// of each for that lock and writes neither: an attempt whose log chunks it
// deletes keeps its log_bytes, which with no first chunk left records that
// retention removed the log.
var columnGrants = map[string]map[RoleKind]map[string][]string{
	"runs": {RoleMaintenance: {"finished_at_ms": {"UPDATE"}}},
	// A project's deletion finds the project by id or name, locks its row
	// first (FOR UPDATE) and writes none of it; of the definitions it
	// deletes with it, it reads only the keys naming the project or the
	// trigger they belong to.
	"projects":                    {RoleMaintenance: {"id": {"SELECT"}, "name": {"SELECT"}, "status": {"SELECT", "UPDATE"}}},
	"tasks":                       {RoleMaintenance: {"id": {"SELECT"}, "project_id": {"SELECT"}}},
	"task_revisions":              {RoleMaintenance: {"project_id": {"SELECT"}}},
	"execution_revisions":         {RoleMaintenance: {"project_id": {"SELECT"}}},
	"triggers":                    {RoleMaintenance: {"id": {"SELECT"}, "project_id": {"SELECT"}}},
	"trigger_revisions":           {RoleMaintenance: {"trigger_id": {"SELECT"}}},
	"trigger_schedules":           {RoleMaintenance: {"project_id": {"SELECT"}}},
	"occurrence_ledger":           {RoleMaintenance: {"trigger_id": {"SELECT"}}},
	"occurrence_ledger_compacted": {RoleMaintenance: {"trigger_id": {"SELECT"}}},
	"trigger_schedule_audit":      {RoleMaintenance: {"trigger_id": {"SELECT"}}},
	"project_pauses":              {RoleMaintenance: {"project_id": {"SELECT"}}},
	// It refuses while a live token is bound to the project, reading
	// these columns of the tokens and never a digest.
	"api_tokens": {RoleMaintenance: {"name": {"SELECT"}, "projects": {"SELECT"}, "revoked_at_ms": {"SELECT"}, "expires_at_ms": {"SELECT"}}},
	"attempts":   {RoleMaintenance: {"log_bytes": {"UPDATE"}}},
	// The notifications rule locks the rows it deletes the same way.
	"notification_outbox": {RoleMaintenance: {"delivered_at_ms": {"UPDATE"}}},
	// A console sign-in records its time and nothing else.
	"console_users": {RoleRuntime: {"last_signin_at_ms": {"UPDATE"}}},
	// A DELETE reads the columns its WHERE names: the admin role's names a
	// session's principal, the maintenance role's its key and expiry. The
	// retention pass locks nothing ahead (no FOR UPDATE, so no UPDATE
	// grant): two passes at once at worst wait on the same rows, and the
	// second deletes fewer.
	"console_sessions": {RoleAdmin: {"principal": {"SELECT"}}, RoleMaintenance: {"digest": {"SELECT"}, "expires_at_ms": {"SELECT"}}},
}

// functionGrants are the functions of the schema a non-owner role may
// EXECUTE, by their signature as PostgreSQL prints it; every function is
// owned by the migration role, and nobody else, PUBLIC included, may call
// one. Both are SECURITY DEFINER: they write console_users as its owner,
// each exactly one write, so the runtime role, which serves the console
// but may not insert or update accounts, creates the first owner with a
// replica's setup code and changes a signed-in user's own password
// through them and in no other way.
var functionGrants = map[string]map[RoleKind][]string{
	"console_first_owner_create(uuid,text,text)": {RoleRuntime: {"EXECUTE"}},
	"console_password_change(uuid,text,text)":    {RoleRuntime: {"EXECUTE"}},
}

// grantedTables lists the matrix's tables in a fixed order.
func grantedTables() []string {
	out := make([]string, 0, len(tableGrants))
	for t := range tableGrants {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// grantedFunctions lists the matrix's functions in a fixed order.
func grantedFunctions() []string {
	out := make([]string, 0, len(functionGrants))
	for f := range functionGrants {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
