-- The task table of the delay queue (MySQL 8 and MariaDB 10.6+). ${table} is delay.jdbc.table-name, quoted here
-- (and in every statement of the queue) so that a reserved word such as `order` works as a name.
-- Times are epoch milliseconds (UTC); status changes are compare-and-set updates on (id, status).
CREATE TABLE IF NOT EXISTS `${table}` (
    id           BIGINT        NOT NULL AUTO_INCREMENT,
    task_type    VARCHAR(128)  NOT NULL,
    task_key     VARCHAR(255)  NULL,
    payload      MEDIUMTEXT    NOT NULL,
    due_at       BIGINT        NOT NULL,
    status       VARCHAR(16)   NOT NULL,
    attempts     INT           NOT NULL DEFAULT 0,
    max_attempts INT           NULL,
    owner        VARCHAR(128)  NULL,
    lease_until  BIGINT        NULL,
    last_error   VARCHAR(2000) NULL,
    created_at   BIGINT        NOT NULL,
    updated_at   BIGINT        NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY `${table}_type_key` (task_type, task_key),
    KEY `${table}_status_due` (status, due_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
