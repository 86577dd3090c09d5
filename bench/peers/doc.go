// Package peers measures QingLong's cluster admission side by side with
// other PostgreSQL-backed schedulers on the same private server, in one
// run. It is a module of its own so the product never depends on a peer:
// `go test ./...` at the repository root does not enter it.
//
// Run it from this directory (BENCHMARKS.md, "Side by side with River"):
//
//	go test -run '^$' -bench Aligned -benchtime 1x
//
// Beside each peer it measures the floor of QingLong's rows: what writing
// them costs on the same server with no scheduler at all (floor_test.go).
// QingLong's drain and the floor's also report the CPU time they cost this
// process (the in-process replica) and the server, and this process's
// allocations per occurrence (cpu_test.go): on a shared machine these move
// far less with the load than the drain does. The meter is the main
// module's internal/testkit/cpumeter, which the cluster store's benchmarks
// use too: Go lets this module import it, as its import path lies under
// the main module's.
//
// BenchmarkServe, BenchmarkServeLag (the admission lag, and the steady
// state) and BenchmarkServeRestart (a replica stopped at a boundary) drive
// real `ql serve --profile cluster` processes instead, black-box
// (BENCHMARKS.md, "Black box", "Steady state" and "A replica stopped at a
// boundary"; serve_test.go and restart_test.go list their settings):
//
//	go test -run '^$' -bench 'BenchmarkServe$' -benchtime 1x
package peers
