package httpapi

import (
	"net/http/httptest"
	"testing"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// BenchmarkAuthenticatedRead is one API read with its token check (an
// indexed lookup on the embedded database) against the fake readers;
// compare with BenchmarkProbe, which checks nothing.
func BenchmarkAuthenticatedRead(b *testing.B) {
	h, tokens := walkHandler(b, Config{Limits: Limits{PerToken: rate.Inf}})
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest("GET", "/api/v1/runs", nil)
		req.Host = "localhost"
		req.Header.Set("Authorization", "Bearer "+tokens[apitoken.Read])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

func BenchmarkProbe(b *testing.B) {
	h, _ := walkHandler(b, Config{})
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/livez", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
