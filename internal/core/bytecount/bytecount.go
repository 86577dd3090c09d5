// Package bytecount counts the bytes a writer takes, for a caller that
// reports how much it wrote or resumes after it (an archive's size, a
// followed log's offset).
package bytecount

import "io"

// Writer passes what is written to it on to its writer and counts the
// bytes that writer took.
type Writer struct {
	w io.Writer
	n int64
}

// NewWriter counts what is written through it to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (c *Writer) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Count is how many bytes the underlying writer took so far.
func (c *Writer) Count() int64 { return c.n }
