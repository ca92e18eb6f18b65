package io.github.delayqueue.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Puts the application's delay queue in test mode for a {@code @SpringBootTest}: the queue's clock (and the
 * application's {@code Clock} bean) is the tester's, the engine runs nothing on its own, and the
 * {@link DelayQueueTester} bean moves time and runs what falls due, on the test's thread. The same as setting
 * {@code delay.test.enabled=true} (and {@code delay.test.store}); docs/testing.md says what it changes.
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureDelayQueueTester
 * class OrderTimeoutTests {
 *     @Autowired DelayQueueTester tester;
 *     ...
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("delay.test")
public @interface AutoConfigureDelayQueueTester {

    /**
     * Whether test mode is on ({@code delay.test.enabled}).
     *
     * @return {@code true} by default
     */
    boolean enabled() default true;

    /**
     * Where tasks are kept in the test ({@code delay.test.store}).
     *
     * @return the application's task table by default
     */
    Store store() default Store.DATABASE;

    /** Where tasks are kept in test mode. */
    enum Store {

        /** The application's task table, on its (test) database: what production uses. */
        DATABASE,

        /**
         * An {@link InMemoryTaskStore} (and, in hybrid mode, an {@link InMemoryTimeIndex} instead of Redis's): the
         * task table's rules without the table, for tests that should not touch it.
         */
        IN_MEMORY
    }
}
