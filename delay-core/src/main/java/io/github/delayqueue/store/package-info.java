/**
 * The task table: {@link io.github.delayqueue.store.TaskStore} and its JDBC implementation for MySQL 8 and
 * MariaDB 10.6+. Every change of a task's status is a compare-and-set {@code UPDATE} here.
 */
@NullMarked
package io.github.delayqueue.store;

import org.jspecify.annotations.NullMarked;
