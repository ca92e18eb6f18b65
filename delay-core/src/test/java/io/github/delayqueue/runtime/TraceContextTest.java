package io.github.delayqueue.runtime;

import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.TaskTable;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The trace a task is scheduled in goes with it to its run: asked once per scheduling call, stored with each of the
 * call's tasks, and handed to the handler invoker in the run's {@link TaskContext}. Without a trace, or with a source
 * that fails, the tasks carry none and scheduling goes on.
 */
class TraceContextTest {

    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final QueueClock clock = new QueueClock(Clock.systemUTC());

    private final Map<String, String> current = new LinkedHashMap<>();

    private int asked;

    private final Indexer indexer = JdbcModeParts.indexer();

    private final DefaultDelayQueue queue = new DefaultDelayQueue(store, indexer, indexer::add,
            new JacksonPayloadCodec(JsonMapper.builder().build()), 1000, Tiers.databaseOnly(), clock,
            new WakeSignal(clock), TaskEvents.NONE, () -> {
                asked++;
                if (current.containsKey("fail")) {
                    throw new IllegalStateException("tracer broke");
                }
                return current;
            });

    @Test
    void theTraceOfTheSchedulingCallReachesTheRunsContext() {
        current.put("tracestate", "vendor=1");
        current.put("traceparent", TRACEPARENT);
        long traced = queue.schedule("t", null, Duration.ZERO);
        List<Long> both = queue.scheduleAll(List.of(TaskRequest.of("t", null).build(),
                TaskRequest.of("t", null).build()));
        assertThat(asked).as("once per call").isEqualTo(2);
        current.clear();
        long plain = queue.schedule("t", null, Duration.ZERO);

        Map<Long, TaskContext> runs = runAll();

        assertThat(runs.get(traced).traceContext())
            .containsOnly(entry("traceparent", TRACEPARENT), entry("tracestate", "vendor=1"));
        assertThat(runs.get(both.get(0)).traceContext()).isEqualTo(runs.get(traced).traceContext());
        assertThat(runs.get(both.get(1)).traceContext()).isEqualTo(runs.get(traced).traceContext());
        assertThat(runs.get(plain).traceContext()).isEmpty();
    }

    @Test
    void aSourceThatFailsLeavesTheTasksWithoutATraceAndSchedulingGoesOn() {
        current.put("fail", "yes");

        long id = queue.schedule("t", null, Duration.ZERO);

        assertThat(runAll().get(id).traceContext()).isEmpty();
    }

    @Test
    void theStoredTraceKeepsTheTraceparentAndWhatFitsAndLeavesOutWhatCannotBeStored() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("baggage", "k=" + "v".repeat(TaskTable.MAX_TRACE_CONTEXT_LENGTH));
        headers.put("bad\nname", "x");
        headers.put("bad=name", "x");
        headers.put("badvalue", "x\ny");
        headers.put("tracestate", "vendor=1");
        headers.put("traceparent", TRACEPARENT);

        String stored = TraceHeaders.encode(headers);

        assertThat(stored).isEqualTo("traceparent=" + TRACEPARENT + "\ntracestate=vendor=1");
        assertThat(TraceHeaders.decode(stored))
            .containsExactly(entry("traceparent", TRACEPARENT), entry("tracestate", "vendor=1"));
        assertThat(TraceHeaders.encode(Map.of())).isNull();
        assertThat(TraceHeaders.encode(Map.of("a\nb", "c"))).isNull();
        assertThat(TraceHeaders.decode(null)).isEmpty();
        assertThat(TraceHeaders.capture(TraceContextSource.NONE)).isNull();
        Map<String, String> full = new HashMap<>();
        full.put("traceparent", TRACEPARENT);
        full.put("baggage", "v".repeat(TaskTable.MAX_TRACE_CONTEXT_LENGTH - TRACEPARENT.length() - 21));
        assertThat(TraceHeaders.encode(full)).hasSize(TaskTable.MAX_TRACE_CONTEXT_LENGTH);
    }

    /** Claims every pending task and runs it; the context each handler saw, by task id. */
    private Map<Long, TaskContext> runAll() {
        Map<Long, TaskContext> seen = new HashMap<>();
        HandlerRegistry registry = new HandlerRegistry();
        registry.register(new TaskHandler() {
            @Override
            public String type() {
                return "t";
            }

            @Override
            public HandlerSettings settings() {
                return new HandlerSettings(null, null, 0);
            }

            @Override
            public @Nullable Type payloadType() {
                return null;
            }

            @Override
            public void handle(@Nullable Object payload, TaskContext context) {
                seen.put(context.id(), context);
            }

            @Override
            public String description() {
                return "t";
            }
        });
        TaskRunner runner = new TaskRunner(registry, new JacksonPayloadCodec(JsonMapper.builder().build()),
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), clock, TaskEvents.NONE, "instance-a", (handler, payload, context) -> {
                    assertThat(context.traceContext()).as("what the invoker sees").isNotNull();
                    handler.handle(payload, context);
                }, new InMemoryTaskStore(), null);
        long now = clock.now();
        for (ClaimedTask task : store.claimDue(TaskStatus.SCHEDULED, Long.MAX_VALUE, 100,
                new Lease("a", now + 30_000, now))) {
            runner.run(task, () -> false);
        }
        return seen;
    }
}
