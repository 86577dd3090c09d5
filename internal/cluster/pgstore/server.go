package pgstore

import (
	"context"
	"net"
	"strconv"
)

// Server is which PostgreSQL server a connection reached, as an operator
// tells servers apart after a failover: a multi-host URL, or a name moved
// to another address, can land a reconnection on another server without a
// word, and two servers may both accept writes (a promoted standby and an
// old primary that came back) until the old one is fenced.
type Server struct {
	// Address is the connection's remote end, as the client dialled it
	// (host:port, or a unix socket's path).
	Address string
	// ServerAddress is the server's own address and port for this session
	// (inet_server_addr, inet_server_port): behind a proxy or NAT it names
	// the server where Address names the proxy; "" over a unix socket.
	ServerAddress string
	// SystemID is the cluster's system identifier (pg_control_system), ""
	// when the role may not read it. A standby shares its primary's.
	SystemID string
	// Timeline is the timeline of the server's last checkpoint
	// (pg_control_checkpoint), 0 when the role may not read it.
	Timeline int64
	// Standby is true while the server is in recovery (a standby).
	Standby bool
	// Unreadable names what the role could not read, for the log: the
	// control-file functions an operator revoked.
	Unreadable []string
}

// Server reads which server one of the pool's connections reached. Every
// connection of a pool is opened alike, but with a multi-host URL each
// one picks its own host: this is the server the one it was given
// reached.
func (r *Runtime) Server(ctx context.Context) (Server, error) {
	c, err := r.pool.Acquire(ctx)
	if err != nil {
		return Server{}, mapErr(err, "reading which database server this is")
	}
	defer c.Release()
	var s Server
	if remote := c.Conn().PgConn().Conn().RemoteAddr(); remote != nil {
		s.Address = remote.String()
	}
	var addr *string
	var port *int32
	var mayID, mayTimeline bool
	if err := c.QueryRow(ctx, sqlServerAddress).Scan(&addr, &port, &s.Standby, &mayID, &mayTimeline); err != nil {
		return Server{}, mapErr(err, "reading which database server this is")
	}
	if addr != nil && port != nil {
		s.ServerAddress = net.JoinHostPort(*addr, strconv.Itoa(int(*port)))
	}
	if !mayID {
		s.Unreadable = append(s.Unreadable, "pg_control_system()")
	} else if err := c.QueryRow(ctx, sqlServerSystemID).Scan(&s.SystemID); err != nil {
		return Server{}, mapErr(err, "reading the database server's system identifier")
	}
	if !mayTimeline {
		s.Unreadable = append(s.Unreadable, "pg_control_checkpoint()")
	} else if err := c.QueryRow(ctx, sqlServerTimeline).Scan(&s.Timeline); err != nil {
		return Server{}, mapErr(err, "reading the database server's timeline")
	}
	return s, nil
}
