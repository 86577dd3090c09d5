package pgstore

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/task"
)

// pageDefs holds what one page lock derived from its rows' stored
// definitions. The rows of a page mostly pin a few task revisions, and
// decoding a task's command and labels, or computing the digests of its
// revision and of its execution revision, cost more per row than reading
// them: a CPU profile of page drains put a third of the Go side of a page
// commit there. Each result is a pure function of the exact stored text it
// is kept by, so a row whose stored copy differs in any byte is decoded and
// verified on its own; only a digest that matched is kept, so a mismatch is
// always recomputed and reported as before. A nil *pageDefs keeps nothing.
type pageDefs struct {
	// texts and uuids are the page's column values read once (page_cols.go).
	texts      map[string]string
	uuids      map[[16]byte]string
	commands   map[string]task.Command
	labels     map[string]map[string]string
	tasks      map[taskDigestKey]bool
	executions map[executionDigestKey]executionOnce
}

// taskDigestKey is everything a task revision's digest is computed from, as
// stored, and the digest stored with it.
type taskDigestKey struct {
	projectID, taskID, name string
	enabled                 bool
	labels, command, digest string
}

// executionDigestKey is everything an execution revision's verification
// reads, as stored, with the task revision it is checked against.
type executionDigestKey struct {
	id, projectID, taskID, taskContentDigest, executor, command, digest string
	taskRevision                                                        int64
	pinnedRevision                                                      int64
	pinnedDigest                                                        string
}

func newPageDefs() *pageDefs {
	return &pageDefs{texts: map[string]string{}, uuids: map[[16]byte]string{},
		commands: map[string]task.Command{}, labels: map[string]map[string]string{},
		tasks: map[taskDigestKey]bool{}, executions: map[executionDigestKey]executionOnce{}}
}

// text is v as a string, the one the page already made of the same bytes
// if any: v is the row's buffer, which the next row overwrites.
func (d *pageDefs) text(v []byte) string {
	if d == nil {
		return string(v)
	}
	if s, ok := d.texts[string(v)]; ok {
		return s
	}
	s := string(v)
	d.texts[s] = s
	return s
}

// uuid is u in canonical text, shared as text shares.
func (d *pageDefs) uuid(u [16]byte) string {
	if d == nil {
		return pgtype.UUID{Bytes: u, Valid: true}.String()
	}
	if s, ok := d.uuids[u]; ok {
		return s
	}
	s := pgtype.UUID{Bytes: u, Valid: true}.String()
	d.uuids[u] = s
	return s
}

// command decodes a stored command; an undecodable one stays empty, so the
// digest check that follows fails closed. Rows share the decoded value and
// only read it.
func (d *pageDefs) command(raw string) task.Command {
	c := func(raw string) task.Command {
		c, _ := decodeCommand([]byte(raw))
		return c
	}
	if d == nil {
		return c(raw)
	}
	return decodedOnce(d.commands, raw, c)
}

// labelsOf decodes stored labels as command does commands.
func (d *pageDefs) labelsOf(raw string) map[string]string {
	l := func(raw string) map[string]string {
		l, _ := decodeLabels([]byte(raw))
		return l
	}
	if d == nil {
		return l(raw)
	}
	return decodedOnce(d.labels, raw, l)
}

// decodedOnce is decode(raw), kept in seen by raw's text.
func decodedOnce[V any](seen map[string]V, raw string, decode func(string) V) V {
	if v, ok := seen[raw]; ok {
		return v
	}
	v := decode(raw)
	seen[raw] = v
	return v
}

// taskVerified reports whether the page already verified the digest of a
// task revision stored exactly as rev was decoded from (labels and command
// its raw text), verifying it now if not. False says only that it is not
// known to match: the caller's check recomputes it.
func (d *pageDefs) taskVerified(rev task.Revision, labels, command string) bool {
	if d == nil {
		return false
	}
	k := taskDigestKey{projectID: rev.ProjectID, taskID: rev.TaskID, name: rev.Spec.Name, enabled: rev.Spec.Enabled,
		labels: labels, command: command, digest: rev.ContentDigest}
	if ok, seen := d.tasks[k]; seen {
		return ok
	}
	ok := rev.VerifyDigest() == nil
	d.tasks[k] = ok
	return ok
}

// executionOnce is the page's one copy of an execution revision as stored
// and pinned, and whether its digest verified.
type executionOnce struct {
	e        *task.Execution
	verified bool
}

// execution is the row's execution revision e (its command the raw text)
// checked against the task revision and digest it is pinned to, for the
// remote_worker executor: the page's one copy of it, which the rows that
// pin the same revision share and only read (made per row, it was an
// allocation each), and whether the page verified its digest as
// taskVerified says.
func (d *pageDefs) execution(e task.Execution, command string, taskRevision int64, taskDigest string) (*task.Execution, bool) {
	if d == nil {
		own := e
		return &own, false
	}
	k := executionDigestKey{id: e.ID, projectID: e.ProjectID, taskID: e.TaskID, taskContentDigest: e.TaskContentDigest,
		executor: string(e.Executor), command: command, digest: e.Digest, taskRevision: e.TaskRevision,
		pinnedRevision: taskRevision, pinnedDigest: taskDigest}
	if once, seen := d.executions[k]; seen {
		return once.e, once.verified
	}
	once := executionOnce{e: new(task.Execution), verified: e.Verify(taskRevision, taskDigest, task.RemoteWorker) == nil}
	*once.e = e
	d.executions[k] = once
	return once.e, once.verified
}
