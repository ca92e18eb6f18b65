package io.github.delayqueue.autoconfigure;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.DelayQueueRuntimeBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application without Boot gets the queue Boot's users get: every setting of a new builder equals what the
 * auto-configuration sets from the {@code delay.*} properties' defaults. Two inputs differ on purpose and are left out:
 * the schema (Boot migrates it as a database initializer of its own) and the mode (hybrid needs a time index given).
 */
class BuilderDefaultsTest {

    /** Not settings: what the application gives (store, handlers, threads, ...), or the two differences above. */
    private static final Set<String> INPUTS = Set.of("dataSource", "store", "inspector", "index", "handlers",
            "annotatedHandlers", "codec", "listeners", "invoker", "clock", "scheduler", "handlerExecutor",
            "initializeSchema");

    @Test
    void aNewBuildersSettingsAreThePropertiesDefaults() throws IllegalAccessException {
        DelayQueueRuntimeBuilder fresh = DelayQueueRuntime.builder(new RefusingDataSource());
        DelayQueueRuntimeBuilder bound = DelayQueueRuntime.builder(new RefusingDataSource());
        DelayQueueAutoConfiguration.applyProperties(bound, new DelayQueueProperties());

        Map<String, Object> settings = settings(fresh);
        assertThat(settings).as("settings compared").hasSizeGreaterThan(20);
        assertThat(settings).isEqualTo(settings(bound));
    }

    private static Map<String, Object> settings(DelayQueueRuntimeBuilder builder) throws IllegalAccessException {
        Map<String, Object> settings = new LinkedHashMap<>();
        for (Field field : DelayQueueRuntimeBuilder.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) || INPUTS.contains(field.getName())) {
                continue;
            }
            field.setAccessible(true);
            settings.put(field.getName(), field.get(builder));
        }
        return settings;
    }
}
