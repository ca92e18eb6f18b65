package io.github.delayqueue.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The classpath resources the queue reads at run time, for a native image: the Redis index's Lua scripts and the task
 * table's migrations. Registered in {@code META-INF/spring/aot.factories}; the handler methods are
 * {@link DelayedHandlerAotProcessor}'s.
 */
class DelayQueueRuntimeHints implements RuntimeHintsRegistrar {

    static final String LUA_SCRIPTS = "io/github/delayqueue/index/*.lua";

    static final String MIGRATIONS = "db/delay/migration/*.sql";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(LUA_SCRIPTS).registerPattern(MIGRATIONS);
    }
}
