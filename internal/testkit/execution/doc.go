// Package execution holds the cluster's end-to-end execution tests and
// benchmarks: real `ql serve --profile cluster` replicas and real
// `ql-worker` processes over a real PostgreSQL (pgtest, roles and
// migrations from clustertest), with faults injected for real — SIGKILL
// and SIGTERM of workers and replicas, an HTTP proxy that partitions a
// worker or loses one reply (faults.HTTPProxy) — and every verdict read
// from durable facts: the database (in database time), each worker's
// journal, and files the commands write (their attempt ids, pids and
// start times).
//
//	once_test.go      every admitted Run is executed once across replicas and workers
//	crash_test.go     a SIGKILLed worker: lost only after lease expiry, retried elsewhere,
//	                  never re-spawned on restart
//	partition_test.go a partitioned worker kills its command before its lease ends;
//	                  its late completion is refused
//	replay_test.go    lost pull and completion replies: one grant, one completion
//	ops_test.go       replica killed mid-pull, worker SIGTERM, cancel, timeout, credentials
//	bench_test.go     dispatch throughput against admission, admission → start latency
//
// The binaries are built once per test binary (TestMain) and the tests
// share the package's PostgreSQL server, each on a database of its own.
package execution
