package cli

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/httpapi"
)

// The cap `ql apply --api-url` names when the server refuses a file as too
// large is the API's.
func TestApplyOverTheAPINamesTheAPIsBodyCap(t *testing.T) {
	t.Parallel()
	if apiMaxBody != httpapi.DefaultLimits.MaxBody {
		t.Fatalf("apply --api-url names a cap of %d bytes; the API's is %d", apiMaxBody, httpapi.DefaultLimits.MaxBody)
	}
}
