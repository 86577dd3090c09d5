package pgstore

import (
	"encoding/hex"
	"errors"

	"github.com/jackc/pgx/v5/pgtype"
)

// The lock statement's columns that the rows of a page mostly share (the
// project, the task revision and its execution revision, the trigger
// revision's task, cron and policy) are scanned through these, straight
// from the row's bytes into one string per distinct value of the page
// (pageDefs.text, pageDefs.uuid): a burst's pages pin a few definitions,
// and a string per column per row was a third of what the replica
// allocated per admission. With a nil *pageDefs each value is a string of
// its own, as a plain *string destination gives.

// errNullColumn is the scan error of a NULL in a column the statement
// never answers NULL, as pgx reports one for a plain *string.
var errNullColumn = errors.New("cannot scan NULL into a string")

// textCol scans a text or jsonb column into *dst. null, when set, records
// a NULL (dst is then ""); without it a NULL is an error for a text column
// and "" for a jsonb one, as pgx's *string and *[]byte destinations give.
type textCol struct {
	dst  *string
	null *bool
	json bool
	defs *pageDefs
}

func (c *textCol) ScanBytes(v []byte) error {
	if c.null != nil {
		*c.null = v == nil
	}
	if v == nil {
		*c.dst = ""
		if c.null == nil && !c.json {
			return errNullColumn
		}
		return nil
	}
	*c.dst = c.defs.text(v)
	return nil
}

// uuidCol scans a uuid column into *dst in canonical text, as pgx does
// for a *string; null as textCol's.
type uuidCol struct {
	dst  *string
	null *bool
	defs *pageDefs
}

func (c *uuidCol) ScanUUID(v pgtype.UUID) error {
	if c.null != nil {
		*c.null = !v.Valid
	}
	if !v.Valid {
		*c.dst = ""
		if c.null == nil {
			return errNullColumn
		}
		return nil
	}
	*c.dst = c.defs.uuid(v.Bytes)
	return nil
}

// uuidTextIs reports whether s is u in canonical text (lower-case hex,
// 8-4-4-4-12), the text a uuid column scans into as a string, without
// making that string.
func uuidTextIs(u [16]byte, s string) bool {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:]) == s
}
