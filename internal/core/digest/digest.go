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
	"hash"
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
type Builder struct {
	h hash.Hash
}

// New starts a digest in the given domain.
func New(domain string) *Builder {
	b := &Builder{h: sha256.New()}
	b.raw([]byte("qinglong-digest-v1"))
	b.raw([]byte(domain))
	return b
}

func (b *Builder) raw(p []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(p)))
	b.h.Write(n[:])
	b.h.Write(p)
}

func (b *Builder) field(tag byte, name string) {
	b.h.Write([]byte{tag})
	b.raw([]byte(name))
}

// String adds a string field.
func (b *Builder) String(name, v string) *Builder {
	b.field(tagString, name)
	b.raw([]byte(v))
	return b
}

// Int adds an integer field.
func (b *Builder) Int(name string, v int64) *Builder {
	b.field(tagInt, name)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(v))
	b.h.Write(n[:])
	return b
}

// Bool adds a boolean field.
func (b *Builder) Bool(name string, v bool) *Builder {
	b.field(tagBool, name)
	if v {
		b.h.Write([]byte{1})
	} else {
		b.h.Write([]byte{0})
	}
	return b
}

// Strings adds an ordered list; order is significant (argv).
func (b *Builder) Strings(name string, vs []string) *Builder {
	b.field(tagStrings, name)
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(vs)))
	b.h.Write(n[:])
	for _, v := range vs {
		b.raw([]byte(v))
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
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(keys)))
	b.h.Write(n[:])
	for _, k := range keys {
		b.raw([]byte(k))
		b.raw([]byte(m[k]))
	}
	return b
}

// Sum returns "sha256:<64 hex>".
func (b *Builder) Sum() string {
	return Prefix + hex.EncodeToString(b.h.Sum(nil))
}

// Valid reports whether s has the stored digest shape.
func Valid(s string) bool {
	if !strings.HasPrefix(s, Prefix) || len(s) != len(Prefix)+64 {
		return false
	}
	_, err := hex.DecodeString(s[len(Prefix):])
	return err == nil && strings.ToLower(s) == s
}
