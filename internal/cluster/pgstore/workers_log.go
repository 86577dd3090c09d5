package pgstore

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// AppendAttemptLog appends a chunk to a running attempt's log, fenced by
// the lease holder (attempt, worker, token digest), a running state and a
// lease not passed in database time, and by the offset: it must be the
// number of bytes held. The lease version may be the current one or an
// older one of the same holder (a chunk sent while its worker's renewal
// was under way, which the worker renews on its own schedule), never one
// ahead of the database's; a worker that lost the lease no longer holds
// it under its token, or its lease passed: it writes nothing. A replay of an accepted chunk (same offset, same
// bytes) is accepted again without storing it twice. Past s.LogCap the
// bytes that fit are kept, a truncation marker is stored after them and
// the attempt is marked truncated; every later append is answered
// Truncated without storing anything.
func (r *Runtime) AppendAttemptLog(ctx context.Context, w WorkerIdentity, req workerproto.LogRequest, s WorkerSettings) (workerproto.LogReply, error) {
	s, err := s.withDefaults()
	if err != nil {
		return workerproto.LogReply{}, err
	}
	digest, err := validateLease(req.Lease)
	if err != nil {
		return workerproto.LogReply{}, err
	}
	if len(req.Data) > workerproto.MaxLogChunk {
		return workerproto.LogReply{}, qlerror.New(qlerror.Invalid, "log chunk of %d bytes is over the %d-byte limit", len(req.Data), workerproto.MaxLogChunk)
	}
	if req.Offset < 0 {
		return workerproto.LogReply{}, qlerror.New(qlerror.Invalid, "log offset %d is negative", req.Offset)
	}
	var reply workerproto.LogReply
	err = inTx(ctx, r.pool, func(tx pgx.Tx) error {
		var err error
		reply, err = appendLog(ctx, tx, w, req, digest, s.LogCap)
		return err
	})
	if err != nil {
		return workerproto.LogReply{}, mapErr(err, "appending to the log of attempt "+req.AttemptID)
	}
	return reply, nil
}

func appendLog(ctx context.Context, tx pgx.Tx, w WorkerIdentity, req workerproto.LogRequest, digest string, capBytes int64) (workerproto.LogReply, error) {
	var workerID, token *string
	var version, expires *int64
	var state string
	var held, now int64
	var truncated bool
	err := tx.QueryRow(ctx, sqlLogFacts, req.AttemptID).Scan(&workerID, &state, &token, &version, &expires, &held, &truncated, &now)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return workerproto.LogReply{}, unknownAttempt(ctx, tx, req.AttemptID)
	case err != nil:
		return workerproto.LogReply{}, err
	case workerID != nil && *workerID != w.ID:
		return workerproto.LogReply{}, otherWorker("attempt", req.AttemptID)
	case token == nil || *token != digest:
		return workerproto.LogReply{}, fenced("attempt %s is not leased under this token; report nothing more for it", req.AttemptID)
	case req.LeaseVersion > *version:
		return workerproto.LogReply{}, leaseVersionRefused(req.AttemptID, req.LeaseVersion, *version)
	case run.AttemptState(state) != run.AttemptRunning:
		return workerproto.LogReply{}, fenced("attempt %s is %s, not running; its log takes no more output", req.AttemptID, state)
	case expires == nil || *expires <= now:
		return workerproto.LogReply{}, fenced("the lease of attempt %s expired in database time; its log takes no more output", req.AttemptID)
	}
	reply := workerproto.LogReply{LogBytes: held, Truncated: truncated}
	switch {
	case truncated || len(req.Data) == 0:
		return reply, nil
	case req.Offset < held:
		var stored []byte
		err := tx.QueryRow(ctx, sqlLogChunkAt, req.AttemptID, req.Offset).Scan(&stored)
		if err == nil && bytes.Equal(stored, req.Data) {
			return reply, nil
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return workerproto.LogReply{}, err
		}
		return workerproto.LogReply{}, fenced("log offset %d of attempt %s is not the %d bytes held, nor an accepted chunk's replay; send from offset %d", req.Offset, req.AttemptID, held, held)
	case req.Offset > held:
		return workerproto.LogReply{}, fenced("log offset %d of attempt %s is past the %d bytes held; send from offset %d", req.Offset, req.AttemptID, held, held)
	}
	offsets, chunks := []int64{held}, [][]byte{req.Data}
	if room := capBytes - held; int64(len(req.Data)) > room {
		offsets, chunks = nil, nil
		if room > 0 {
			offsets, chunks = append(offsets, held), append(chunks, req.Data[:room])
		}
		offsets, chunks = append(offsets, held+max(room, 0)), append(chunks, run.TruncationMarker(capBytes))
		reply.Truncated = true
	}
	added := int64(0)
	for _, c := range chunks {
		added += int64(len(c))
	}
	tag, err := execNamed(ctx, tx, sqlLogAppend, logAppendParams, pgx.StrictNamedArgs{
		"attempt_id": req.AttemptID, "held": held, "added": added, "truncated": reply.Truncated, "now_ms": now,
		"offsets": offsets, "chunks": chunks,
	})
	if err != nil {
		return workerproto.LogReply{}, err
	}
	if tag.RowsAffected() != int64(len(chunks)) {
		return workerproto.LogReply{}, qlerror.New(qlerror.Internal, "log append of attempt %s stored %d chunks under the lock, want %d", req.AttemptID, tag.RowsAffected(), len(chunks))
	}
	reply.LogBytes = held + added
	return reply, nil
}

// ReadAttemptLog writes an attempt's log from offset to w, in order, and
// returns the offset to read from next and whether the cap truncated the
// log. It reads one snapshot, so next is exactly the end of what it wrote.
func (r *Runtime) ReadAttemptLog(ctx context.Context, attemptID string, offset int64, w io.Writer) (int64, bool, error) {
	return r.readAttemptLog(ctx, attemptID, offset, nil, w)
}

// ReadAttemptLogUpTo is ReadAttemptLog writing at most max bytes (max >
// 0): the chunks after them are not read, so a reader taking a long log a
// piece at a time (the API's log route) reads each chunk about once, not
// the whole rest of the log for every piece.
func (r *Runtime) ReadAttemptLogUpTo(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (int64, bool, error) {
	if max <= 0 {
		return 0, false, qlerror.New(qlerror.Invalid, "log read of %d bytes: give 1 or more", max)
	}
	end := offset + max
	return r.readAttemptLog(ctx, attemptID, offset, &end, w)
}

// readAttemptLog writes an attempt's log from offset to w, up to end when
// end is not nil.
func (r *Runtime) readAttemptLog(ctx context.Context, attemptID string, offset int64, end *int64, w io.Writer) (int64, bool, error) {
	if err := ids.Validate("attempt id", attemptID); err != nil {
		return 0, false, qlerror.Wrap(qlerror.Invalid, err, "give an attempt id as `ql runs show` prints it")
	}
	if offset < 0 {
		return 0, false, qlerror.New(qlerror.Invalid, "log offset %d is negative", offset)
	}
	tx, err := r.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return 0, false, mapErr(err, "reading the log of attempt "+attemptID)
	}
	defer rollbackTx(ctx, tx)
	var held int64
	var truncated bool
	err = tx.QueryRow(ctx, sqlLogLength, attemptID).Scan(&held, &truncated)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, notFoundAttempt(attemptID)
	}
	if err != nil {
		return 0, false, mapErr(err, "reading the log of attempt "+attemptID)
	}
	if offset >= held {
		return held, truncated, nil
	}
	next := held
	if end != nil {
		next = min(held, *end)
	}
	rows, err := tx.Query(ctx, sqlLogChunksFrom, attemptID, offset, end)
	if err != nil {
		return 0, false, mapErr(err, "reading the log of attempt "+attemptID)
	}
	var at int64
	var chunk []byte
	read := false
	_, err = pgx.ForEachRow(rows, []any{&at, &chunk}, func() error {
		read = true
		if keep := next - at; keep < int64(len(chunk)) {
			chunk = chunk[:max(keep, 0)]
		}
		if skip := offset - at; skip > 0 {
			chunk = chunk[min(skip, int64(len(chunk))):]
		}
		_, err := w.Write(chunk)
		return err
	})
	if err != nil {
		return 0, false, mapErr(err, "reading the log of attempt "+attemptID)
	}
	if !read {
		// Bytes held and none left from offset: retention removed the log.
		return offset, false, qlerror.New(qlerror.NotFound, "attempt %s: its log was removed by log retention", attemptID)
	}
	return next, truncated, nil
}
