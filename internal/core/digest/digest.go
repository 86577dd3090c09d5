// Package digest is the canonical, domain-separated encoding behind every
// content digest QingLong stores (task, execution and trigger revisions).
//
// Why hand-rolled and not JSON: JSON has no single canonical form (key order,
// number spelling, escaping), so two builds could hash the same content
// differently. Here every field is written as tag, name and length-prefixed
// value in a fixed order chosen by the caller, and the domain string (e.g.
// "qinglong/command@v1") is hashed first, so a digest of one kind can never
// equal a digest of another. Golden vectors in the callers' tests pin the
// output: changing this encoding is a breaking change.
package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"strings"
)

// Prefix marks the algorithm in stored digests.
const Prefix = "sha256:"

const (
	tagString  = 's'
	tagInt     = 'i'
	tagBool    = 'b'
	tagStrings = 'l'
	tagMap     = 'm'
)

// Builder accumulates fields. Field order is part of the encoding.
//
// The encoding is collected in buf and hashed once by Sum: written field by
// field into a hash.Hash, every name and value was copied to the heap on its
// way through the interface call, and a page commit verifies a trigger's
// digest per admission (BENCHMARKS.md, "The replica's share of a burst"). The
// bytes hashed are the same.
type Builder struct {
	buf []byte
	// room holds buf for the usual digest, so building one allocates only
	// the Builder and the result.
	room [768]byte
}

// New starts a digest in the given domain.
func New(domain string) *Builder {
	b := &Builder{}
	b.buf = b.room[:0]
	b.raw("qinglong-digest-v1")
	b.raw(domain)
	return b
}

func (b *Builder) raw(p string) {
	b.buf = binary.BigEndian.AppendUint32(b.buf, uint32(len(p)))
	b.buf = append(b.buf, p...)
}

func (b *Builder) field(tag byte, name string) {
	b.buf = append(b.buf, tag)
	b.raw(name)
}

// String adds a string field.
func (b *Builder) String(name, v string) *Builder {
	b.field(tagString, name)
	b.raw(v)
	return b
}

// Int adds an integer field.
func (b *Builder) Int(name string, v int64) *Builder {
	b.field(tagInt, name)
	b.buf = binary.BigEndian.AppendUint64(b.buf, uint64(v))
	return b
}

// Bool adds a boolean field.
func (b *Builder) Bool(name string, v bool) *Builder {
	b.field(tagBool, name)
	if v {
		b.buf = append(b.buf, 1)
	} else {
		b.buf = append(b.buf, 0)
	}
	return b
}

// Strings adds an ordered list; order is significant (argv).
func (b *Builder) Strings(name string, vs []string) *Builder {
	b.field(tagStrings, name)
	b.buf = binary.BigEndian.AppendUint32(b.buf, uint32(len(vs)))
	for _, v := range vs {
		b.raw(v)
	}
	return b
}

// Map adds a string map, encoded in sorted key order so map iteration order
// never leaks into the digest.
func (b *Builder) Map(name string, m map[string]string) *Builder {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.field(tagMap, name)
	b.buf = binary.BigEndian.AppendUint32(b.buf, uint32(len(keys)))
	for _, k := range keys {
		b.raw(k)
		b.raw(m[k])
	}
	return b
}

// Sum returns "sha256:<64 hex>".
func (b *Builder) Sum() string {
	sum := sha256.Sum256(b.buf)
	var out [len(Prefix) + 2*sha256.Size]byte
	hex.Encode(out[copy(out[:], Prefix):], sum[:])
	return string(out[:])
}

// Valid reports whether s has the stored digest shape.
func Valid(s string) bool {
	if !strings.HasPrefix(s, Prefix) || len(s) != len(Prefix)+64 {
		return false
	}
	_, err := hex.DecodeString(s[len(Prefix):])
	return err == nil && strings.ToLower(s) == s
}
