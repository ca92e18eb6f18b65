package io.github.delayqueue.autoconfigure;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.runtime.TaskEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Warns, once per type, when an instance that runs tasks schedules a task of a type that none of its handlers serves.
 * Instances claim only the types they serve, so such a task waits, pending, until an instance with its handler runs
 * it: right during a rolling deploy or with another application on the same table, a task that waits forever when
 * nobody was meant to serve it (a typo in the type, a handler never deployed). The warning comes from the call that
 * caused it; the gauge {@code delay.tasks.unserved} and the health's {@code unservedTasks} show what waits. What
 * becomes of such tasks does not change here.
 * <p>
 * A producer-only instance ({@code delay.worker.enabled=false}) is not warned: it schedules for other instances by
 * design, never claims a task, and cannot know which types they serve, so it would warn of every type it uses. Its
 * tasks' failures are logged where they happen, on the instance that claimed them.
 * <p>
 * Handlers register as their beans are created, so a type scheduled while the context starts is checked once every
 * singleton exists. Types are remembered up to {@value #MAX_TYPES}; past that, further types are not warned of.
 */
final class UnservedTypeWarning implements TaskEvents, SmartInitializingSingleton {

    static final int MAX_TYPES = 1_000;

    private static final Logger log = LoggerFactory.getLogger(UnservedTypeWarning.class);

    private final HandlerRegistry registry;

    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** Types scheduled while the context started, to check once every handler is registered. */
    private final Set<String> early = new LinkedHashSet<>();

    private volatile boolean ready;

    UnservedTypeWarning(HandlerRegistry registry) {
        this.registry = registry;
    }

    /** Called after the commit of every task created: a look-up in the registry, and nothing more once warned. */
    @Override
    public void scheduled(String type) {
        if (registry.find(type) != null || warned.contains(type) || warned.size() >= MAX_TYPES) {
            return;
        }
        if (!ready) {
            synchronized (early) {
                if (!ready) {
                    if (early.size() < MAX_TYPES) {
                        early.add(type);
                    }
                    return;
                }
            }
        }
        warn(type);
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> scheduled;
        synchronized (early) {
            ready = true;
            scheduled = List.copyOf(early);
            early.clear();
        }
        for (String type : scheduled) {
            if (registry.find(type) == null) {
                warn(type);
            }
        }
    }

    private void warn(String type) {
        if (warned.add(type)) {
            log.warn("Scheduled a task of type '{}', but no @DelayedHandler on this instance serves that type. "
                    + "Instances claim only the types they serve, so the task waits, pending, until an instance (or "
                    + "another application on the same table) with a handler for it runs it; if none is meant to, "
                    + "check the type's name or deploy its handler (the gauge delay.tasks.unserved counts what "
                    + "waits). Set delay.worker.enabled=false on instances that only schedule. (Logged once per "
                    + "type.)", type);
        }
    }
}
