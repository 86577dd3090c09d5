// Package faults holds the cluster profile's fault gates: integration
// tests that inject real faults into real PostgreSQL servers and real
// replicas and then judge, from durable database facts alone, that every
// cron occurrence was admitted exactly once.
//
//	promotion_test.go   a claim held across a physical fail-over is honoured
//	                    until its database-time expiry, then taken over once
//	commitloss_test.go  a lost COMMIT reply is "outcome unknown", durable, and
//	                    never admitted again after a restart or a promotion
//	soak_test.go        SIGKILLed `ql serve --profile cluster` processes and
//	                    terminated backends never duplicate or stall an occurrence
//
// The fault tools are ordinary code, each with its own test:
//
//   - Proxy: a PostgreSQL wire-protocol TCP proxy that, armed, forwards one
//     COMMIT, waits for the server's answer, swallows it and cuts both
//     sides, and reports what the server answered; or freezes a client
//     right before a chosen statement (its session stays idle, in its open
//     transaction) until released, as a stopped or partitioned process.
//   - HTTPProxy: an HTTP proxy between workers and a worker ingress that
//     partitions (holds every request, loses the replies in flight) until
//     healed, or loses the reply to one request after the server answered.
//   - SyncPair: a primary with a synchronous (remote_apply) streaming
//     standby built with the low-level backup API, so it works with server
//     builds that lack pg_basebackup; FenceAndPromote stops the primary and
//     promotes the standby onto a new timeline.
//
// Every fault is proven, not assumed: the proxy reports the server's COMMIT
// tag, promotion reports both timelines, a killed replica's wait status
// must say SIGKILL, and a terminated backend must vanish from
// pg_stat_activity. docs/gates describes each gate and its last figures.
package faults
