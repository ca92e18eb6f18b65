package io.github.delayqueue.store;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;

/** A database of its own with the task table {@code delay_task} migrated in, behind a pool of ten connections. */
final class TaskTablePool {

    static final String TABLE = "delay_task";

    private TaskTablePool() {
    }

    /** The caller closes it. */
    static HikariDataSource create() {
        TestDatabase db = TestServices.newDatabase();
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(db.url());
        dataSource.setUsername(db.user());
        dataSource.setPassword(db.password());
        dataSource.setMaximumPoolSize(10);
        new TaskSchema(dataSource, TABLE, TableNames.defaultHistoryTable(TABLE)).migrate();
        return dataSource;
    }
}
