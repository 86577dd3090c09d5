package scripts

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A path is taken relative to the folder, without a leading ./ or a
// trailing /, and refused by its shape when it could name anything else:
// absolute, naming .. or an empty or . part, holding a control character
// or NUL, not UTF-8, or too long.
func TestAPathIsCleanedOrRefusedByItsShape(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", ".": "", "./a.js": "a.js", "sub/": "sub", "sub/a.js": "sub/a.js", "...js": "...js", "中文.js": "中文.js"} {
		if got, err := Clean(in); err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	long := make([]byte, MaxPath+1)
	for i := range long {
		long[i] = 'a'
	}
	for _, in := range []string{"..", "../a.js", "a/../../b", "/etc/passwd", "a//b", "a/./b", "a\x00b", "a\nb", "a\x7fb", "\xff.js", string(long), string(long[:256])} {
		if _, err := Clean(in); qlerror.ReasonOf(err) != RefusalPathInvalid {
			t.Errorf("Clean(%q): %v; want script_path_invalid", in, err)
		}
	}
}
