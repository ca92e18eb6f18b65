-- The sample's own table, migrated by the application's Flyway (history in flyway_schema_history); the queue's
-- delay_task table has migrations and a history table of its own.
-- Times are epoch milliseconds (UTC), as in delay_task: exact on every MySQL and MariaDB version and in every time
-- zone (mysql-connector-j drops the fraction of a DATETIME on MariaDB servers that report version 5.5.5-10.x).
CREATE TABLE orders (
    id           BIGINT        NOT NULL AUTO_INCREMENT,
    amount       DECIMAL(12,2) NOT NULL,
    status       VARCHAR(20)   NOT NULL,
    created_at   BIGINT        NOT NULL,
    cancel_at    BIGINT        NOT NULL,
    paid_at      BIGINT        NULL,
    cancelled_at BIGINT        NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
