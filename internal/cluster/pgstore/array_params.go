package pgstore

import (
	"github.com/jackc/pgx/v5/pgtype"
)

// The page's statements take one array per column with an element per row
// (the write alone takes 26). pgx hands each element of a plain slice to
// its encoder as an interface value, which allocates a copy of every
// int64, string and struct element (for []*T and structs through
// reflection), and it cannot encode a string into a binary uuid: it first
// tries, formats the whole slice into the error it discards, and then
// sends the array as text for the server to parse. The arrays below are
// encoded in binary straight from their elements, with no allocation per
// element but the jsonb payloads' (BENCHMARKS.md, "The replica's share of
// a burst").

// elems is an array parameter of pgtype values (pgtype.Int8, pgtype.Text,
// pgtype.UUID, pgtype.Bool, pgtype.TID: an invalid element is NULL). Each
// element reaches its encoder as a pointer into the slice, which fits in
// an interface value without a copy, and whose pgtype valuer method the
// element's codec encodes from directly.
type elems[T any] []T

// Dimensions is one dimension of the slice's length (nil, a NULL array,
// for a nil slice), as pgtype.FlatArray's.
func (a elems[T]) Dimensions() []pgtype.ArrayDimension {
	if a == nil {
		return nil
	}
	return oneDimension(len(a))
}

func (a elems[T]) Index(i int) any { return &a[i] }

func (a elems[T]) IndexType() any { return new(T) }

// jsonElems is a jsonb[] parameter of encoded JSON texts (a nil element is
// NULL), each passed to the jsonb encoder as the []byte it copies.
type jsonElems [][]byte

func (a jsonElems) Dimensions() []pgtype.ArrayDimension {
	if a == nil {
		return nil
	}
	return oneDimension(len(a))
}

// oneDimension is the dimensions of an array of n elements from index 1.
func oneDimension(n int) []pgtype.ArrayDimension {
	return []pgtype.ArrayDimension{{Length: int32(n), LowerBound: 1}} //nolint:gosec // G115: one element per row of a page, at most 256
}

func (a jsonElems) Index(i int) any { return a[i] }

func (a jsonElems) IndexType() any { return []byte(nil) }

// int8Of and textOf are the elements for a nullable value.
func int8Of(v *int64) pgtype.Int8 {
	if v == nil {
		return pgtype.Int8{}
	}
	return pgtype.Int8{Int64: *v, Valid: true}
}

func textOf(v *string) pgtype.Text {
	if v == nil {
		return pgtype.Text{}
	}
	return pgtype.Text{String: *v, Valid: true}
}

// uuidColumn builds a uuid[] parameter of n elements, binary while every
// id set is in the canonical form PostgreSQL itself prints (36 characters,
// hyphens after the 8th, 12th, 16th and 20th hex digit), which the server
// would have parsed to the same uuid. An id in any other form turns the
// whole column back into text, as these arrays were sent before, so the
// server still parses, accepts or refuses exactly what it did.
type uuidColumn struct {
	bin  elems[pgtype.UUID]
	text []*string
}

func newUUIDColumn(n int) *uuidColumn { return &uuidColumn{bin: make(elems[pgtype.UUID], n)} }

// set makes element k id, NULL when id is nil.
func (c *uuidColumn) set(k int, id *string) {
	if c.text == nil {
		if id == nil {
			return
		}
		if u, ok := canonicalUUID(*id); ok {
			c.bin[k] = u
			return
		}
		c.text = make([]*string, len(c.bin))
		for i, u := range c.bin {
			if u.Valid {
				s := u.String()
				c.text[i] = &s
			}
		}
	}
	c.text[k] = id
}

// param is the column as a statement's argument.
func (c *uuidColumn) param() any {
	if c.text != nil {
		return c.text
	}
	return c.bin
}

// uuidParam is ids as a uuid[] argument.
func uuidParam(ids []string) any {
	c := newUUIDColumn(len(ids))
	for k := range ids {
		c.set(k, &ids[k])
	}
	return c.param()
}

// canonicalUUID parses s when it is a uuid in canonical form (either case).
func canonicalUUID(s string) (pgtype.UUID, bool) {
	var u pgtype.UUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	for j, at := range uuidHexPairs {
		hi, ok1 := hexDigit(s[at])
		lo, ok2 := hexDigit(s[at+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u.Bytes[j] = hi<<4 | lo
	}
	u.Valid = true
	return u, true
}

// uuidHexPairs are where each byte of a canonical uuid's text begins.
var uuidHexPairs = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
