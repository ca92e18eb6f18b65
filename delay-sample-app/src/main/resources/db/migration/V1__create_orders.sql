-- The sample's own table, migrated by the application's Flyway (history in flyway_schema_history); the queue's
-- delay_task table has migrations and a history table of its own.
CREATE TABLE orders (
    id           BIGINT        NOT NULL AUTO_INCREMENT,
    amount       DECIMAL(12,2) NOT NULL,
    status       VARCHAR(20)   NOT NULL,
    created_at   DATETIME(3)   NOT NULL,
    cancel_at    DATETIME(3)   NOT NULL,
    paid_at      DATETIME(3)   NULL,
    cancelled_at DATETIME(3)   NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
