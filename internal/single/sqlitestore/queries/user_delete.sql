-- Removes an account; its sessions end on their next request.
DELETE FROM console_users WHERE name = ?1
