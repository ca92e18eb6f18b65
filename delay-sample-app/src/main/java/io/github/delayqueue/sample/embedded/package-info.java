/**
 * Embedded MariaDB and Redis for a machine with nothing but a JDK: started before the application context when the
 * application has no database or Redis configured, stopped after it closes.
 */
@NullMarked
package io.github.delayqueue.sample.embedded;

import org.jspecify.annotations.NullMarked;
