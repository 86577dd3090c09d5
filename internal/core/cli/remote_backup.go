package cli

import (
	"context"
	"io"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// backupPath is the API's route of a backup archive.
const backupPath = "/api/v1/backup"

// downloadBackup copies the server's backup archive (GET /api/v1/backup)
// to w and returns the bytes copied. The archive takes as long as the
// server needs to make and send it: no overall time limit, only the
// context's. An answer cut off before its end is an error, never a
// shorter archive taken for whole.
func (c *apiClient) downloadBackup(ctx context.Context, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+backupPath, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := (&http.Client{Transport: c.http.Transport}).Do(req)
	if err != nil {
		return 0, qlerror.Wrap(qlerror.Unavailable, unwrapURL(err), "no backup from the server at %s", c.base)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		answer, err := io.ReadAll(io.LimitReader(resp.Body, maxRemoteBody))
		if err != nil {
			return 0, qlerror.Wrap(qlerror.Unavailable, err, "reading the server's answer")
		}
		return 0, c.refusal(resp, answer)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, qlerror.Wrap(qlerror.Unavailable, unwrapURL(err), "the backup archive from %s was cut off after %d bytes", c.base, n)
	}
	return n, nil
}
