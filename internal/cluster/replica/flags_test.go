package replica

import (
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// metricsReplicaFlags are the flags of replica id of env's cluster,
// connected as the runtime role, with its API, worker ingress and metrics
// each on a port of its own, a 250 ms cadence and a 2 s stop.
func metricsReplicaFlags(env *clustertest.Env, id string) cli.ServeFlags {
	return cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: env.URL(pgstore.RoleRuntime), ReplicaID: id,
		RolePrefix: env.Prefix, HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0",
		Cadence: 250 * time.Millisecond, StopTimeout: 2 * time.Second}
}

// retentionReplicaFlags are metricsReplicaFlags with retention served
// through the maintenance role: finished Runs older than 30 days are
// deleted, logs are kept.
func retentionReplicaFlags(env *clustertest.Env, id string) cli.ServeFlags {
	f := metricsReplicaFlags(env, id)
	f.MaintenanceURL = env.URL(pgstore.RoleMaintenance)
	f.Retention = retention.Settings{Runs: "30d", Logs: "off", LogBytes: "off"}
	return f
}
