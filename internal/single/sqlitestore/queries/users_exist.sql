-- Whether any console account exists, disabled ones included.
SELECT EXISTS (SELECT 1 FROM console_users)
